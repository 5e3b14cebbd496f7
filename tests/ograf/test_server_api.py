"""The OGraf Server API (/ograf/v1) on a real server, every request and answer validated against
our OpenAPI document of it (overlay/ograf/openapi.yaml, openapi-core): a controller's load → play → update → stop on a
layer is the desk's take (on the layers the rundown's output draws), and a desk's take is an
instance of its layer here. Operators only; CORS only for the configured origins."""
from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from openapi_core.testing import MockRequest, MockResponse

from tests.ograf.openapi_doc import AUTH, DOCUMENT, server_api
from tests.support import Server

ORIGIN = "http://controller.example:3000"
V1 = "/ograf/v1"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("ograf-api") / "data", mode="threading",
                 env={"CHGK_OVERLAY_OGRAF_ORIGINS": json.dumps([ORIGIN])}).start()
    yield srv
    srv.stop()


def ograf(server: Server, method: str, path: str, body: Any = None, params: dict | None = None,
          status: int = 200) -> Any:
    """A request to the Server API, and its answer, both checked against the OpenAPI document."""
    r = server.call(method, V1 + path, body, params=params)
    request = MockRequest("http://localhost", method.lower(), V1 + path, args=params or {}, headers=AUTH,
                          data=json.dumps(body).encode() if body is not None else None,
                          content_type="application/json")
    server_api().validate_request(request)
    assert r.status_code == status, f"{method} {path} -> {r.status_code} {r.text}"
    server_api().validate_response(request, MockResponse(r.content, status_code=r.status_code,
                                                         content_type=r.headers["Content-Type"]))
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
    refused = server.call("POST", V1 + "/renderers/show/target/graphicInstance/updateAction",
                          {"renderTarget": straps(), "graphicInstanceId": iid, "params": {"data": {"style": "neon"}}})
    assert refused.status_code == 400 and "style" in refused.json()["detail"]
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
    assert server.call("DELETE", V1 + "/graphics/own-scoreboard").status_code == 409
    ograf(server, "PUT", "/renderers/show/target/graphicInstance/clear",
          {"filters": [{"graphicId": "own-scoreboard"}]})
    ograf(server, "DELETE", "/graphics/own-scoreboard")
    ograf(server, "GET", "/graphics/own-scoreboard", status=404)
    assert server.call("DELETE", V1 + "/graphics/chgk-lower-third").status_code == 400  # ours stay


def test_the_export_downloads(server: Server) -> None:
    import io
    import zipfile
    everything = zipfile.ZipFile(io.BytesIO(server.call("GET", "/ograf/export.zip").content)).namelist()
    assert {"chgk-question.ograf.json", "ograf/chgk/question.mjs", "ograf/chgk/graphic.mjs",
            "ograf/chgk/thumbnails/question.png", "overlays/question.js", "lib/client.js"} <= set(everything)
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
