"""The EBU's own OGraf v1 documents, read at test time from ../shared/ograf (never copied into
the project): the manifest and GDD JSON Schemas and the Server API's OpenAPI document.

`CHGK_OGRAF_SPEC` may name another copy (the folder holding `v1/`). Under `CI=true` a missing
file fails the test that needs it; elsewhere it skips. Every reference resolves offline: the
EBU's schemas by their `$id` or path, the JSON Schema meta-schemas from `jsonschema`, and the
one document outside the EBU's folder (SuperFly's GDD object schema, which the OpenAPI document
names for a renderer's render-target schema) by its successor, the EBU's `gdd/object.json`.
"""
from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
BASE = Path(os.environ.get("CHGK_OGRAF_SPEC") or ROOT.parent / "shared" / "ograf")
SPEC = BASE / "v1" / "specification"
SCHEMAS = SPEC / "json-schemas"
SERVER_API = SPEC / "open-api" / "server-api.yaml"
EBU_ID = "https://ograf.ebu.io/v1/specification/json-schemas/"
GDD_ELSEWHERE = "https://superflytv.github.io/GraphicsDataDefinition/gdd-meta-schema/v1/lib/object.json"


def require() -> None:
    """The EBU's files are here, or the test stops: failed under CI, skipped elsewhere."""
    missing = [p for p in (SCHEMAS / "graphics" / "schema.json", SERVER_API) if not p.is_file()]
    if missing:
        why = f"the EBU's OGraf files are not at {BASE} (../shared/ograf beside the clone): {missing[0]}"
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)


@cache
def _schemas() -> dict[str, Any]:
    """{$id: schema} of every EBU JSON Schema file."""
    out = {}
    for path in sorted(SCHEMAS.rglob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        out[doc["$id"]] = doc
    return out


def _local(uri: str) -> Any:
    """A referenced document, from disk or `jsonschema`'s meta-schemas; nothing from the network."""
    from jsonschema_specifications import REGISTRY

    base = uri.split("#")[0]
    if base == GDD_ELSEWHERE:
        base = EBU_ID + "gdd/object.json"
    if base.startswith("file:"):
        from urllib.parse import unquote, urlparse
        return json.loads(Path(unquote(urlparse(base).path)).read_text(encoding="utf-8"))
    if base in _schemas():
        return _schemas()[base]
    if base in REGISTRY:
        return REGISTRY.contents(base)
    raise AssertionError(f"a reference the EBU's documents make that is not resolved offline: {uri}")


@cache
def manifest_validator() -> Any:
    """The EBU's `graphics/schema.json` (draft 2020-12), its `$ref`s resolved locally."""
    import jsonschema
    from jsonschema_specifications import REGISTRY
    from referencing import Resource

    require()
    # crawled once here: an uncrawled registry is crawled again at every lookup of a `$ref`
    # (42 → 24 ms a manifest, and the Hypothesis test validates hundreds)
    registry = REGISTRY.with_resources((i, Resource.from_contents(d)) for i, d in _schemas().items()).crawl()
    return jsonschema.Draft202012Validator(_schemas()[EBU_ID + "graphics/schema.json"], registry=registry)


def manifest_errors(doc: Any) -> list[Any]:
    return list(manifest_validator().iter_errors(doc))


def paths_of(errors: list[Any]) -> set[str]:
    """Every place an error (or an error inside its `oneOf`/`anyOf`) points at, `/`-joined."""
    out: set[str] = set()
    for e in errors:
        out.add("/".join(map(str, e.absolute_path)))
        out |= paths_of(list(e.context or []))
    return out


def _keys_as_text(node: Any) -> Any:
    """YAML reads `200:` as a number; OpenAPI's response codes are texts."""
    if isinstance(node, dict):
        return {str(k): _keys_as_text(v) for k, v in node.items()}
    return [_keys_as_text(v) for v in node] if isinstance(node, list) else node


@cache
def document() -> dict:
    require()
    return _keys_as_text(yaml.safe_load(SERVER_API.read_text(encoding="utf-8")))


@cache
def server_api() -> Any:
    """openapi-core over the EBU's `server-api.yaml`, resolved offline."""
    from jsonschema_path import SchemaPath
    from openapi_core import Config, OpenAPI

    handlers = {"https": _local, "http": _local, "file": _local}
    spec = SchemaPath.from_dict(document(), base_uri=SERVER_API.as_uri(), handlers=handlers)
    return OpenAPI(spec, config=Config(spec_validator_cls=None))  # (the spec's own check would go online)


# Answers our Server API gives that the EBU's document does not name, and why (docs/OGRAF.md,
# "The EBU's OpenAPI and ours"). Their bodies are the document's ErrorResponse all the same.
VENDOR_STATUSES = {
    400: "a request the server cannot act on: a body or render target the EBU's document refuses too",
    401: "no operator's bearer token: the Server API drives the air, so it asks for one",
    409: "a graphic still in use (on air or named by a rundown) is not deleted",
    422: "a rule of the desk refuses it now (too many custom actions since the take)",
}
PREFIX = "/ograf/v1"


def _error_response_validator() -> Any:
    import jsonschema
    return jsonschema.Draft4Validator(document()["components"]["schemas"]["ErrorResponse"])


def check_exchange(method: str, path: str, *, query: dict | None, body: Any, status: int, content: bytes,
                   content_type: str) -> None:
    """One request to /ograf/v1 and its answer, validated against the EBU's `server-api.yaml`.

    A request the EBU's document calls invalid must be refused (400, or 401 before that); the
    server may refuse more (a render target that is not a layer's name). An answer whose status the operation declares is
    validated by openapi-core; a status it does not declare must be one of VENDOR_STATUSES and
    its body the document's ErrorResponse."""
    from openapi_core.templating.responses.exceptions import ResponseNotFound
    from openapi_core.testing import MockRequest, MockResponse
    from openapi_core.validation.request.exceptions import RequestValidationError

    request = MockRequest("http://localhost", method.lower(), PREFIX + path, args=query or {},
                          data=json.dumps(body).encode() if body is not None else None,
                          content_type="application/json")
    try:
        server_api().validate_request(request)
        valid_request = True
    except RequestValidationError:
        valid_request = False
    assert valid_request or status in (400, 401), (
        f"{method} {path}: the EBU's document calls the request invalid, the server answered {status}")
    try:
        server_api().validate_response(request, MockResponse(content, status_code=status, content_type=content_type))
    except ResponseNotFound:
        assert status in VENDOR_STATUSES, f"{method} {path}: {status} is neither in the EBU's document nor ours to add"
        errors = [e.message for e in _error_response_validator().iter_errors(json.loads(content))]
        assert not errors, f"{method} {path} {status}: not the EBU's ErrorResponse: {errors}"


def operation_path(path: str) -> str:
    """The EBU document's path template a concrete path answers to (`/graphics/x` → `/graphics/{graphicId}`)."""
    parts = path.strip("/").split("/")
    for template in document()["paths"]:
        names = template.strip("/").split("/")
        if len(names) == len(parts) and all(n == p or n.startswith("{") for n, p in zip(names, parts)):
            return template
    return path
