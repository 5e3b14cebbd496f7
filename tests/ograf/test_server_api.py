"""The OGraf Server API (/ograf/v1) on a real server, every request and answer validated against
our OpenAPI document of it (overlay/ograf/openapi.yaml, openapi-core): a controller's load → play → update → stop on a
layer is the desk's take (on the layers the rundown's output draws), and a desk's take is an
instance of its layer here. Operators only; CORS only for the configured origins."""
from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from openapi_core.testing import MockRequest, MockResponse

from overlay.graphics.game import GRAPHICS
from tests.ograf import ebu
from tests.ograf.openapi_doc import AUTH, DOCUMENT, document, server_api
from tests.support import Server, wait_for

ORIGIN = "http://controller.example:3000"
V1 = "/ograf/v1"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("ograf-api") / "data", mode="threading",
                 env={"CHGK_OVERLAY_OGRAF_ORIGINS": json.dumps([ORIGIN])}).start()
    yield srv
    srv.stop()


SEEN: set[tuple[str, str, int]] = set()  # (method, EBU path, status) exercised in this module


def ograf(server: Server, method: str, path: str, body: Any = None, params: dict | None = None,
          status: int = 200, token: bool = True) -> Any:
    """A request to the Server API, and its answer, both checked against our OpenAPI document and
    the EBU's (tests/ograf/ebu.py: request and response validation, vendor statuses listed)."""
    r = server.call(method, V1 + path, body, params=params) if token else requests.request(
        method, server.url + V1 + path, json=body, params=params, timeout=10)
    assert r.status_code == status, f"{method} {path} -> {r.status_code} {r.text}"
    request = MockRequest("http://localhost", method.lower(), V1 + path, args=params or {},
                          headers=AUTH if token else {},
                          data=json.dumps(body).encode() if body is not None else None,
                          content_type="application/json")
    if status not in (400, 401):  # (our document asks for the token and describes the body it takes)
        server_api().validate_request(request)
    server_api().validate_response(request, MockResponse(r.content, status_code=r.status_code,
                                                         content_type=r.headers["Content-Type"]))
    ebu.check_exchange(method, path, query=params, body=body, status=r.status_code, content=r.content,
                       content_type=r.headers["Content-Type"])
    SEEN.add((method.lower(), ebu.operation_path(path), r.status_code))
    return r.json()


def test_the_document_refuses_a_wrong_answer() -> None:
    """The validation is real: an answer the OpenAPI document does not allow is refused — a
    manifest without `main`, a playAction answer without `currentStep`."""
    from openapi_core.validation.response.exceptions import InvalidData

    from overlay.ograf import manifests
    doc = {k: v for k, v in manifests.manifest("lower-third").items() if k != "main"}
    asked = MockRequest("http://localhost", "get", V1 + "/graphics/chgk-lower-third", headers=AUTH)
    with pytest.raises(InvalidData):
        server_api().validate_response(asked, MockResponse(json.dumps({"graphic": doc, "manifest": doc}).encode(),
                                                           content_type="application/json"))
    asked = MockRequest("http://localhost", "post", V1 + "/renderers/show/target/graphicInstance/playAction",
                        headers=AUTH, data=b'{"renderTarget": {"layer": "a"}, "graphicInstanceId": "x", "params": {}}',
                        content_type="application/json")
    with pytest.raises(InvalidData):
        server_api().validate_response(asked, MockResponse(b'{"graphicInstanceId": "x", "statusCode": 200}',
                                                           content_type="application/json"))


def test_the_document_and_its_manifest_schema_are_served(server: Server) -> None:
    """Anyone may read the description (no token): the YAML as committed, the manifest schema it
    refers to (`manifest.schema.json`, beside it) as the one the server checks manifests with."""
    from overlay.ograf.manifest_schema import MANIFEST
    doc = requests.get(server.url + V1 + "/openapi.yaml", timeout=10)
    assert doc.status_code == 200 and doc.headers["Content-Type"].startswith("application/yaml")
    assert doc.text == DOCUMENT.read_text(encoding="utf-8")
    schema = requests.get(server.url + V1 + "/manifest.schema.json", timeout=10)
    assert schema.status_code == 200 and schema.json() == MANIFEST


def straps() -> dict:
    return {"layer": "straps"}


def test_a_controller_takes_updates_and_stops_through_the_desks_path(server: Server) -> None:
    info = ograf(server, "GET", "/")
    assert info["name"] == "chgk-overlay"
    listed = {g["id"] for g in ograf(server, "GET", "/graphics")["graphics"]}
    assert {"chgk-lower-third", "chgk-question", "chgk-scoreboard", "chgk-bug"} <= listed
    assert ograf(server, "GET", "/graphics/chgk-question")["graphic"]["stepCount"] == 3
    ograf(server, "GET", "/graphics/chgk-nothing", status=404)
    assert ograf(server, "GET", "/renderers")["renderers"][0]["id"] == "show"
    ograf(server, "GET", "/renderers/other", status=404)

    loaded = ograf(server, "POST", "/renderers/show/target/graphicInstance/load",
                   {"renderTarget": straps(), "graphicId": "chgk-lower-third",
                    "params": {"data": {"title": "Борис Бурда", "subtitle": "Магистр"}}})
    iid = loaded["graphicInstanceId"]
    assert server.api("GET", "/api/graphics")["layers"] == {}  # loaded, not on air
    target = ograf(server, "GET", "/renderers/show/target", params={"renderTarget": json.dumps(straps())})
    assert [i["graphicInstanceId"] for i in target["graphicInstances"]] == [iid]
    renderer = ograf(server, "GET", "/renderers/show")["renderer"]
    assert {"renderTarget": straps(), "name": "Layer straps", "description": "free",
            "graphicInstances": target["graphicInstances"]} in renderer["renderTargets"]

    played = ograf(server, "POST", "/renderers/show/target/graphicInstance/playAction",
                   {"renderTarget": straps(), "graphicInstanceId": iid, "params": {}})
    assert played["currentStep"] == 0
    layer = server.api("GET", "/api/graphics")["layers"]["straps"]
    assert (layer["graphic"], layer["data"]["title"], layer["item"]) == ("lower-third", "Борис Бурда", iid)

    ograf(server, "POST", "/renderers/show/target/graphicInstance/updateAction",
          {"renderTarget": straps(), "graphicInstanceId": iid, "params": {"data": {"title": "Анна"}}})
    assert server.api("GET", "/api/graphics")["layers"]["straps"]["data"]["title"] == "Анна"
    # bad data is refused by the graphic's own checks, and nothing changes
    refused = ograf(server, "POST", "/renderers/show/target/graphicInstance/updateAction",
                    {"renderTarget": straps(), "graphicInstanceId": iid, "params": {"data": {"style": "neon"}}},
                    status=550)  # the graphic's own check: the EBU's "error from within the GraphicInstance"
    assert "style" in refused["detail"]
    assert server.api("GET", "/api/graphics")["layers"]["straps"]["data"]["title"] == "Анна"

    ograf(server, "POST", "/renderers/show/target/graphicInstance/customActions/replay",
          {"renderTarget": straps(), "graphicInstanceId": iid, "params": {"payload": {}}})
    ograf(server, "POST", "/renderers/show/target/graphicInstance/stopAction",
          {"renderTarget": straps(), "graphicInstanceId": iid, "params": {}})
    assert server.api("GET", "/api/graphics")["layers"] == {}
    cleared = ograf(server, "PUT", "/renderers/show/target/graphicInstance/clear", {"filters": []})
    assert cleared["graphicInstances"] == [{"renderTarget": straps(), "graphicInstanceId": iid}]


def test_the_question_steps_and_a_desk_take_is_an_instance(server: Server) -> None:
    main = {"layer": "main"}
    iid = ograf(server, "POST", "/renderers/show/target/graphicInstance/load",
                {"renderTarget": main, "graphicId": "chgk-question", "params": {"data": {}}})["graphicInstanceId"]
    steps = []
    for params in ({}, {"delta": 1}, {"goto": 2}):
        steps.append(ograf(server, "POST", "/renderers/show/target/graphicInstance/playAction",
                           {"renderTarget": main, "graphicInstanceId": iid, "params": params})["currentStep"])
        steps.append(server.api("GET", "/api/graphics")["layers"]["main"]["data"]["step"])
    assert steps == [0, "card", 1, "text", 2, "answer"]
    ograf(server, "POST", "/renderers/show/target/graphicInstance/playAction",
          {"renderTarget": main, "graphicInstanceId": iid, "params": {}})  # past the last step: the end
    assert "main" not in server.api("GET", "/api/graphics")["layers"]

    # the desk's take shows here as an instance of its layer, and a controller can take it out
    rundown = server.api("POST", "/api/rundowns", {"name": "Эфир"})["id"]
    item = server.api("POST", f"/api/rundowns/{rundown}/items",
                      {"segment": "Начало", "label": "Плашка", "graphic": "lower-third", "layer": "straps",
                       "data": {"title": "Ведущий"}})
    item_id = item.get("id") or item.get("item", {}).get("id")
    server.api("POST", f"/api/rundowns/{rundown}/actions", {"action": "take", "item": item_id})
    target = ograf(server, "GET", "/renderers/show/target", params={"renderTarget": json.dumps(straps())})
    desk = target["graphicInstances"][0]
    assert desk["graphic"]["id"] == "chgk-lower-third"
    ograf(server, "POST", "/renderers/show/target/graphicInstance/stopAction",
          {"renderTarget": straps(), "graphicInstanceId": desk["graphicInstanceId"], "params": {}})
    assert server.api("GET", f"/api/rundowns/{rundown}")["program"] == {}


def test_operators_only_and_cors_for_configured_origins(server: Server) -> None:
    anon = requests.get(server.url + V1 + "/graphics", timeout=10)
    assert anon.status_code == 401
    ok = server.call("GET", V1 + "/graphics", headers={"Origin": ORIGIN})
    assert ok.headers["Access-Control-Allow-Origin"] == ORIGIN
    other = server.call("GET", V1 + "/graphics", headers={"Origin": "http://evil.example"})
    assert "Access-Control-Allow-Origin" not in other.headers
    pre = requests.options(server.url + V1 + "/renderers/show/target/graphicInstance/load", timeout=10,
                           headers={"Origin": ORIGIN, "Access-Control-Request-Method": "POST",
                                    "Access-Control-Request-Headers": "authorization, content-type"})
    assert pre.status_code == 204 and "Authorization" in pre.headers["Access-Control-Allow-Headers"]


def test_uploaded_graphics_are_driven_and_deleted_through_the_api(server: Server) -> None:
    from tests.web.test_ograf_library import example_zip, upload
    assert upload(server, example_zip("scoreboard")).status_code == 201
    assert "own-scoreboard" in {g["id"] for g in ograf(server, "GET", "/graphics")["graphics"]}
    assert ograf(server, "GET", "/graphics/own-scoreboard")["graphic"]["main"] == "graphic.mjs"
    target = {"layer": "ext"}
    iid = ograf(server, "POST", "/renderers/show/target/graphicInstance/load",
                {"renderTarget": target, "graphicId": "own-scoreboard",
                 "params": {"data": {"home": "Знатоки"}}})["graphicInstanceId"]
    ograf(server, "POST", "/renderers/show/target/graphicInstance/playAction",
          {"renderTarget": target, "graphicInstanceId": iid, "params": {}})
    layer = server.api("GET", "/api/graphics")["layers"]["ext"]
    assert (layer["graphic"], layer["data"], layer["ograf"]["id"]) == ("ograf:own-scoreboard", {"home": "Знатоки"},
                                                                       "own-scoreboard")
    ograf(server, "POST", "/renderers/show/target/graphicInstance/customActions/set-score",
          {"renderTarget": target, "graphicInstanceId": iid, "params": {"payload": {"home": 2, "away": 1}}})
    assert server.api("GET", "/api/graphics")["layers"]["ext"]["actions"] == [{"id": "set-score",
                                                                               "payload": {"home": 2, "away": 1}}]
    # in use on air: not deleted (the library's 409), then deleted once out
    ograf(server, "DELETE", "/graphics/own-scoreboard", status=409)
    ograf(server, "PUT", "/renderers/show/target/graphicInstance/clear",
          {"filters": [{"graphicId": "own-scoreboard"}]})
    ograf(server, "DELETE", "/graphics/own-scoreboard")
    ograf(server, "GET", "/graphics/own-scoreboard", status=404)
    ograf(server, "DELETE", "/graphics/chgk-lower-third", status=409)  # ours stay


def test_the_export_downloads(server: Server) -> None:
    import io
    import zipfile
    everything = zipfile.ZipFile(io.BytesIO(server.call("GET", "/ograf/export.zip").content)).namelist()
    assert {f"chgk-question/{n}" for n in ("chgk-question.ograf.json", "ograf/chgk/question.mjs",
                                           "ograf/chgk/graphic.mjs", "ograf/chgk/thumbnails/question.png",
                                           "overlays/question.js", "lib/client.js")} <= set(everything)
    # one manifest a folder, the folder named by its id (what SuperFly's ograf-server reads)
    folders: dict[str, list[str]] = {}
    for name in everything:
        folders.setdefault(name.split("/", 1)[0], []).append(name)
    assert set(folders) == {f"chgk-{g}" for g in GRAPHICS}
    for folder, names in folders.items():
        assert [n for n in names if n.endswith(".ograf.json")] == [f"{folder}/{folder}.ograf.json"]
    one = server.call("GET", "/ograf/export/chgk-lower-third.zip")
    assert one.status_code == 200 and "chgk-lower-third.ograf.zip" in one.headers["Content-Disposition"]
    names = zipfile.ZipFile(io.BytesIO(one.content)).namelist()
    assert [n for n in names if n.endswith(".ograf.json")] == ["chgk-lower-third.ograf.json"]
    assert "ograf/chgk/lower-third.mjs" in names and "ograf/chgk/question.mjs" not in names
    assert server.call("GET", "/ograf/export/chgk-nothing.zip").status_code == 404
    main = server.call("GET", "/ograf/package/ograf/chgk/lower-third.mjs")
    assert main.headers["Content-Type"].startswith("text/javascript") and b"ografGraphic" in main.content


def test_socket_io_takes_the_configured_renderer_origins_only(server: Server) -> None:
    """Our exported game graphics in an operator's renderer follow the game over /overlay: that
    renderer's origin (OGRAF_ORIGINS) may connect, another site's may not."""
    import socketio

    from tests.support import close_client
    for origin, allowed in ((ORIGIN, True), ("http://evil.example", False), (server.url, True)):
        sio = socketio.Client(reconnection=False)
        try:
            if allowed:
                sio.connect(server.url, namespaces=["/overlay"], headers={"Origin": origin}, wait_timeout=10)
                assert sio.connected, origin
            else:
                with pytest.raises(socketio.exceptions.ConnectionError):
                    sio.connect(server.url, namespaces=["/overlay"], headers={"Origin": origin}, wait_timeout=10)
        finally:
            close_client(sio)


def test_every_route_and_error_against_the_ebus_document(server: Server) -> None:
    """Each operation of the EBU's `server-api.yaml` answered with success and with each error
    our server gives — 400, 401, 404, 409, 550 — every request and answer validated against the
    EBU's document (and ours); a refusal changes nothing on air."""
    from tests.web.test_ograf_library import example_zip, upload
    SEEN.clear()
    target, main = {"layer": "ebu"}, {"layer": "main"}
    instance = "/renderers/show/target/graphicInstance/"
    ograf(server, "GET", "/")
    ograf(server, "GET", "/graphics")
    ograf(server, "GET", "/graphics/chgk-timer")
    ograf(server, "GET", "/graphics/no-such", status=404)
    ograf(server, "DELETE", "/graphics/no-such", status=404)
    ograf(server, "DELETE", "/graphics/chgk-timer", status=409)
    ograf(server, "GET", "/renderers")
    ograf(server, "GET", "/renderers/show")
    ograf(server, "GET", "/renderers/other", status=404)
    ograf(server, "GET", "/renderers/show/target", params={"renderTarget": json.dumps(target)})
    ograf(server, "GET", "/renderers/other/target", params={"renderTarget": json.dumps(target)}, status=404)
    ograf(server, "GET", "/renderers/show/target", params={"renderTarget": '{"layer": "Not a layer!"}'}, status=404)
    ograf(server, "GET", "/renderers/show/target", params={"renderTarget": '{"layer": ""}'}, status=404)
    ograf(server, "POST", "/renderers/show/customActions/shake", {"payload": {}}, status=404)
    before = server.api("GET", "/api/graphics")

    load = {"renderTarget": target, "graphicId": "chgk-lower-third", "params": {"data": {"title": "Ведущий"}}}
    ograf(server, "POST", instance + "load", {**load, "params": {"data": {"title": 5}}}, status=550)
    ograf(server, "POST", instance + "load", {**load, "graphicId": "no-such"}, status=404)
    ograf(server, "POST", instance + "load", {"renderTarget": target, "graphicId": "chgk-lower-third"}, status=400)
    ograf(server, "POST", instance + "load", {**load, "params": {}}, status=400)  # `data` is required
    ograf(server, "POST", instance + "load", {**load, "graphicId": "chgk-bug", "params": {"data": {"qr": True}}},
          status=550)  # the QR code needs LIVE_URL: refused at load, not at playAction
    ograf(server, "POST", "/renderers/other/target/graphicInstance/load", load, status=404)
    iid = ograf(server, "POST", instance + "load", load)["graphicInstanceId"]
    at = {"renderTarget": target, "graphicInstanceId": iid}

    ograf(server, "POST", instance + "playAction", {**at, "params": {"delta": "one"}}, status=400)
    ograf(server, "POST", instance + "playAction", {**at, "graphicInstanceId": "no-such", "params": {}}, status=404)
    ograf(server, "POST", instance + "playAction", {**at, "params": {}})
    ograf(server, "POST", instance + "updateAction", {**at, "params": {}}, status=400)
    ograf(server, "POST", instance + "updateAction", {**at, "params": {"data": {"style": "neon"}}}, status=550)
    ograf(server, "POST", instance + "updateAction", {**at, "graphicInstanceId": "x", "params": {"data": {}}},
          status=404)
    ograf(server, "POST", instance + "updateAction", {**at, "params": {"data": {"title": "Анна"}}})
    ograf(server, "POST", instance + "customActions/replay", {**at, "params": {"payload": {}}})
    ograf(server, "POST", instance + "customActions/shake", {**at, "params": {"payload": {}}}, status=404)
    ograf(server, "POST", instance + "customActions/replay", {**at}, status=400)

    assert upload(server, example_zip("scoreboard")).status_code == 201
    theirs = ograf(server, "POST", instance + "load", {"renderTarget": main, "graphicId": "own-scoreboard",
                                                       "params": {"data": {"home": "Знатоки"}}})["graphicInstanceId"]
    mine = {"renderTarget": main, "graphicInstanceId": theirs}
    ograf(server, "POST", instance + "playAction", {**mine, "params": {}})
    ograf(server, "POST", instance + "customActions/set-score", {**mine, "params": {"payload": {"home": -1}}},
          status=550)
    ograf(server, "POST", instance + "customActions/set-score", {**mine, "params": {"payload": {"home": 1, "away": 0}}})
    ograf(server, "DELETE", "/graphics/own-scoreboard", status=409)
    ograf(server, "POST", instance + "stopAction", {**mine, "params": {}})
    ograf(server, "POST", instance + "stopAction", {**at, "graphicInstanceId": "no-such", "params": {}}, status=404)
    ograf(server, "POST", instance + "stopAction", {"graphicInstanceId": iid, "params": {}}, status=400)
    ograf(server, "POST", instance + "stopAction", {**at, "params": {}})
    ograf(server, "PUT", instance + "clear", {"filters": "all"}, status=400)
    ograf(server, "PUT", "/renderers/other/target/graphicInstance/clear", {"filters": []}, status=404)
    ograf(server, "PUT", instance + "clear", {"filters": [{"graphicId": "own-scoreboard"}]})
    ograf(server, "DELETE", "/graphics/own-scoreboard")
    ograf(server, "PUT", instance + "clear", {"filters": [{"renderTarget": target}]})
    assert server.api("GET", "/api/graphics")["layers"] == before["layers"]

    for method, path in (("GET", "/"), ("GET", "/graphics"), ("DELETE", "/graphics/chgk-timer"),
                         ("GET", "/renderers/show"), ("POST", instance + "load")):
        ograf(server, method, path, load if method == "POST" else None, status=401, token=False)

    operations = {(m, p) for p, item in ebu.document()["paths"].items() for m in item if m in ("get", "post", "put",
                                                                                                "delete")}
    # (the renderer lists no custom actions of its own, so its customActions route can only say 404)
    renderer_action = ("post", "/renderers/{rendererId}/customActions/{customActionId}")
    assert {(m, p) for m, p, s in SEEN if s == 200} == operations - {renderer_action}
    assert (*renderer_action, 404) in SEEN
    assert {s for *_, s in SEEN} == {200, 400, 401, 404, 409, 550}
    declared_errors = {(m, p, int(s)) for p, item in ebu.document()["paths"].items() for m, op in item.items()
                       if m in ("get", "post", "put", "delete") for s in op["responses"] if s in ("404", "550")}
    # playAction and stopAction have no 550 here: the data was checked at load and update, and a
    # step or an exit has nothing the graphic could refuse
    never = {(m, p, 550) for m, p in operations if p.endswith(("/playAction", "/stopAction"))}
    missing = declared_errors - never - SEEN
    assert not missing, f"the EBU's document declares answers not exercised: {sorted(missing)}"


def test_the_ebus_document_refuses_a_wrong_answer() -> None:
    """The EBU-side check is real: a playAction answer without `graphicInstanceId`, a load answer
    without `statusCode`, and a 418 (no one's status) are refused."""
    from openapi_core.validation.response.exceptions import InvalidData
    play = {"renderTarget": {"layer": "a"}, "graphicInstanceId": "x", "params": {}}
    with pytest.raises(InvalidData):
        ebu.check_exchange("POST", "/renderers/show/target/graphicInstance/playAction", query=None, body=play,
                           status=200, content=b'{"statusCode": 200}', content_type="application/json")
    load = {"renderTarget": {"layer": "a"}, "graphicId": "g", "params": {"data": {}}}
    with pytest.raises(InvalidData):
        ebu.check_exchange("POST", "/renderers/show/target/graphicInstance/load", query=None, body=load,
                           status=200, content=b'{"graphicInstanceId": "x"}', content_type="application/json")
    with pytest.raises(AssertionError, match="418"):
        ebu.check_exchange("GET", "/graphics", query=None, body=None, status=418, content=b"{}",
                           content_type="application/json")


def _operations(doc: dict) -> dict[tuple[str, str], dict]:
    return {(m, p): op for p, item in doc["paths"].items() for m, op in item.items()
            if m in ("get", "post", "put", "delete")}


def _body_properties(doc: dict, op: dict) -> set[str]:
    """The top-level properties an operation's JSON body names (through `$ref` and `allOf`)."""
    def resolve(node: Any) -> Any:
        while isinstance(node, dict) and "$ref" in node and node["$ref"].startswith("#/"):
            node = functools.reduce(lambda n, k: n[k], node["$ref"][2:].split("/"), doc)
        return node
    schema = resolve(((op.get("requestBody") or {}).get("content", {}).get("application/json") or {}).get("schema"))
    if not isinstance(schema, dict):
        return set()
    parts = [resolve(s) for s in schema.get("allOf", [])] + [schema]
    return {k for part in parts for k in (part.get("properties") or {})}


# Where our /ograf/v1/openapi.yaml differs from the EBU's server-api.yaml: additions only, each
# with its reason (docs/OGRAF.md, "The EBU's OpenAPI and ours").
OUR_ADDED_OPERATIONS = {
    ("get", "/openapi.yaml"): "this document, served",
    ("get", "/manifest.schema.json"): "the manifest schema this server checks uploads with",
}


def test_our_document_differs_from_the_ebus_by_additions_only() -> None:
    """Every path, method, path parameter and body property of the EBU's document is in ours under
    the same name; every status the EBU's document declares, ours answers (by that code or its
    `default`); what ours adds is listed here with its reason."""
    ours, theirs = document(), ebu.document()
    our_ops, their_ops = _operations(ours), _operations(theirs)
    assert set(their_ops) <= set(our_ops), f"renamed or missing: {sorted(set(their_ops) - set(our_ops))}"
    assert {k: OUR_ADDED_OPERATIONS[k] for k in set(our_ops) - set(their_ops)} == OUR_ADDED_OPERATIONS
    differences = []
    for key, their in sorted(their_ops.items()):
        our = our_ops[key]
        for status in their["responses"]:
            if status not in our["responses"] and "default" not in our["responses"]:
                differences.append(f"{key}: {status} not answered")
        missing = _body_properties(theirs, their) - _body_properties(ours, our)
        if missing:
            differences.append(f"{key}: body properties {sorted(missing)} not named")
        extra = {s for s in our["responses"] if s != "default"} - set(their["responses"])
        unexplained = {s for s in extra if int(s) not in ebu.VENDOR_STATUSES and s != "550"}
        if unexplained:
            differences.append(f"{key}: statuses {sorted(unexplained)} added without a reason")
    assert differences == []


def form_defaults(schema: dict) -> Any:
    """The data an OGraf controller's form starts with (SuperFly's ograf-form, getDefaultDataFromSchema):
    each field's default, else its type's blank — "" for a text, 0 for a number, false, []."""
    if "default" in schema:
        return schema["default"]
    if schema.get("type") == "object":
        return {k: form_defaults(v) for k, v in (schema.get("properties") or {}).items()}
    return {"string": "", "number": 0, "integer": 0, "boolean": False, "array": []}.get(schema.get("type"))


def test_a_controllers_form_defaults_load_every_graphic(server: Server) -> None:
    """SuperFly's controller fills every field of a graphic's schema before anyone types, and its
    render target from the renderer's schema: every graphic of ours loads from that (blank
    optional fields are not given), but for the three that need what only the operator can give
    — refused in words (550, the field named)."""
    renderer = ograf(server, "GET", "/renderers/show")["renderer"]
    target = form_defaults(renderer["renderTargetSchema"])
    assert target == {"layer": "main"}
    ograf(server, "GET", "/renderers/show/target", params={"renderTarget": json.dumps(target)})
    refused = {}
    for graphic in GRAPHICS:
        schema = ograf(server, "GET", f"/graphics/chgk-{graphic}")["graphic"]["schema"]
        assert not [k for k, p in schema["properties"].items() if p.get("readOnly")], graphic  # ours to write
        data = form_defaults(schema)
        r = server.call("POST", V1 + "/renderers/show/target/graphicInstance/load",
                        {"renderTarget": target, "graphicId": f"chgk-{graphic}", "params": {"data": data}})
        if r.status_code != 200:
            assert r.status_code == 550, r.text
            why = r.json()["error"]["params"]
            refused[graphic] = why.get("field") or why.get("fields")
    # (a ticker's lines, the credits' names and a bug's picture or QR code are the operator's to give)
    assert refused == {"ticker": "items", "credits": "names", "bug": "media, qr"}
    ograf(server, "PUT", "/renderers/show/target/graphicInstance/clear", {"filters": []})


def test_an_update_keeps_the_slates_running_clock(server: Server) -> None:
    """A corrected title on the slate on air does not restart its countdown (the exported OGraf
    slate counts from its take too); a new countdown does."""
    at = {"renderTarget": {"layer": "slate"}}
    iid = ograf(server, "POST", "/renderers/show/target/graphicInstance/load",
                {**at, "graphicId": "chgk-slate",
                 "params": {"data": {"kind": "break", "countdown_ms": 300_000}}})["graphicInstanceId"]
    at["graphicInstanceId"] = iid
    ograf(server, "POST", "/renderers/show/target/graphicInstance/playAction", {**at, "params": {}})
    ends = server.api("GET", "/api/graphics")["layers"]["slate"]["data"]["ends_at"]
    wait_for(lambda: server.api("GET", "/api/time")["server_now"] > ends - 300_000 + 50, timeout=5,
             what="the server's clock past the take")
    ograf(server, "POST", "/renderers/show/target/graphicInstance/updateAction",
          {**at, "params": {"data": {"title": "Перерыв на рекламу"}}})
    data = server.api("GET", "/api/graphics")["layers"]["slate"]["data"]
    assert (data["title"], data["ends_at"]) == ("Перерыв на рекламу", ends)
    ograf(server, "POST", "/renderers/show/target/graphicInstance/updateAction",
          {**at, "params": {"data": {"countdown_ms": 600_000}}})
    assert server.api("GET", "/api/graphics")["layers"]["slate"]["data"]["ends_at"] > ends + 299_000
    ograf(server, "PUT", "/renderers/show/target/graphicInstance/clear", {"filters": [{"graphicInstanceId": iid}]})
