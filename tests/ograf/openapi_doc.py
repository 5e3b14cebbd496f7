"""Our OpenAPI document of the OGraf Server API (overlay/ograf/openapi.yaml) for openapi-core,
resolved offline: its one outside reference, `manifest.schema.json`, is our manifest schema
(overlay/ograf/manifest_schema.py); the JSON Schema meta-schema comes with `jsonschema`."""
from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml

from overlay.ograf.manifest_schema import MANIFEST

DOCUMENT = Path(__file__).resolve().parents[2] / "overlay" / "ograf" / "openapi.yaml"
AUTH = {"Authorization": "Bearer test"}  # the document asks for the operators' bearer token


def _load(uri: str) -> Any:
    from jsonschema_specifications import REGISTRY
    base = uri.split("#")[0]
    if base == DOCUMENT.with_name("manifest.schema.json").as_uri():
        return MANIFEST
    if base in REGISTRY:
        return REGISTRY.contents(base)
    raise AssertionError(f"the tests resolve no other reference: {uri}")


def _keys_as_text(node: Any) -> Any:
    """YAML reads `200:` as a number; OpenAPI's response codes are texts."""
    if isinstance(node, dict):
        return {str(k): _keys_as_text(v) for k, v in node.items()}
    return [_keys_as_text(v) for v in node] if isinstance(node, list) else node


def document() -> dict:
    return _keys_as_text(yaml.safe_load(DOCUMENT.read_text(encoding="utf-8")))


@cache
def server_api() -> Any:
    from jsonschema_path import SchemaPath
    from openapi_core import Config, OpenAPI
    from openapi_spec_validator import OpenAPIV31SpecValidator

    handlers = {"https": _load, "http": _load, "file": _load, "<all_urls>": _load}
    spec = SchemaPath.from_dict(document(), base_uri=DOCUMENT.as_uri(), handlers=handlers)
    OpenAPIV31SpecValidator(spec).validate()  # the document itself is valid OpenAPI 3.1 (offline)
    return OpenAPI(spec, config=Config(spec_validator_cls=None))  # (its own check would go online)
