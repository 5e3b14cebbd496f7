"""The vendored OGraf Server API document (overlay/ograf/spec/open-api/server-api.yaml) for
openapi-core, resolved offline: its https references are the vendored schema files."""
from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import yaml

SPEC = Path(__file__).resolve().parents[2] / "overlay" / "ograf" / "spec"
OGRAF = "https://ograf.ebu.io/v1/specification/"
# the Server API names SuperFly's GDD meta-schema for render-target schemas; OGraf v1 ships that
# meta-schema as its own gdd/object.json (the vendored copy stands in for it)
GDD_SUPERFLY = "https://superflytv.github.io/GraphicsDataDefinition/gdd-meta-schema/v1/lib/object.json"


def _load(uri: str) -> Any:
    from jsonschema_specifications import REGISTRY
    if uri.startswith(GDD_SUPERFLY):
        return json.loads((SPEC / "json-schemas/gdd/object.json").read_text())
    if uri.startswith(OGRAF):
        return json.loads((SPEC / uri[len(OGRAF):].split("#")[0]).read_text())
    if uri.startswith("file://"):
        path = Path(uri[len("file://"):].split("#")[0])
        return yaml.safe_load(path.read_text()) if path.suffix == ".yaml" else json.loads(path.read_text())
    if uri.split("#")[0] in REGISTRY:
        return REGISTRY.contents(uri.split("#")[0])
    raise AssertionError(f"the tests resolve no reference from the network: {uri}")


def _keys_as_text(node: Any) -> Any:
    """YAML reads `200:` as a number; OpenAPI's response codes are texts."""
    if isinstance(node, dict):
        return {str(k): _keys_as_text(v) for k, v in node.items()}
    return [_keys_as_text(v) for v in node] if isinstance(node, list) else node


@cache
def server_api() -> Any:
    from jsonschema_path import SchemaPath
    from openapi_core import Config, OpenAPI

    path = SPEC / "open-api" / "server-api.yaml"
    handlers = {"https": _load, "http": _load, "file": _load, "<all_urls>": _load}
    document = _keys_as_text(yaml.safe_load(path.read_text()))
    return OpenAPI(SchemaPath.from_dict(document, base_uri=path.as_uri(), handlers=handlers),
                   # the document itself is the EBU's, vendored as is: not re-validated here (the
                   # validator would fetch its https references); requests and answers are
                   config=Config(spec_validator_cls=None))
