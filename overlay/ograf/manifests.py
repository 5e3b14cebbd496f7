"""Our on-air graphics as OGraf Graphics: one manifest `chgk-<graphic>.ograf.json` each, checked
against our schema of an OGraf v1 manifest (manifest_schema.py).

Two kinds, and where their content comes from:
- game graphics (scoreboard, question, club tables, league boards, …) draw the *public* state of
  this server: the component connects to its `/overlay` Socket.IO namespace (`server` in the load
  data, else the origin the package was loaded from), the same feed OBS pages get — it never
  carries an unplayed question or an answer before its verdict;
- cue graphics (lower-third, bug, ticker, slate, credits) draw the data given to `load` and
  `updateAction`, as a desk's take would.
"""
from __future__ import annotations

from typing import Any

from ..graphics.game import GRAPHICS
from ..schema import graphic_schema
from . import manifest_schema
from .manifest_schema import SCHEMA_URL

PREFIX = "chgk-"
VERSION = "1"
AUTHOR = {"name": "chgk-overlay"}  # no url: the project has no public page to point at

# graphics whose content is the data given by the controller (not the game's state)
CUE_GRAPHICS = ("lower-third", "bug", "ticker", "slate", "credits")
LEAGUE_GRAPHICS = ("season-rating", "final-teams", "series")
# the steps a graphic plays through (the rundown's model.STEPS, e.g. question card → text → answer)
STEPS: dict[str, tuple[str, ...]] = {"question": ("card", "text", "answer")}

NAMES: dict[str, tuple[str, str]] = {  # graphic: (name, description) — Russian, as on air
    "scoreboard": ("ЧГК: счёт", "Счёт знатоков и телезрителей, значки бонусов и решающего раунда."),
    "timer": ("ЧГК: таймер", "Минута обсуждения, блиц, дополнительная минута: отсчёт с делениями."),
    "table": ("ЧГК: игровой стол", "Сектора сверху, сыгранные закрашены; волчок и выпавший сектор."),
    "question": ("ЧГК: карточка вопроса", "Сектор, автор вопроса, приз; шаги: карточка → текст → ответ."),
    "blitz": ("ЧГК: блиц", "Три отметки блица или суперблица и игрок."),
    "lower-third": ("ЧГК: плашка", "Заголовок и подзаголовок; стиль с фото."),
    "result": ("ЧГК: итог игры", "Победитель, счёт, призы телезрителей, лучший игрок."),
    "full": ("ЧГК: всё в одном", "Счёт, стол, блиц, карточка и таймер в одной раскладке."),
    "central-table": ("ЧГК клуб: центральный стол", "Команда за центральным столом и её игроки."),
    "club-tables": ("ЧГК клуб: столы", "Все команды клуба; столы с верным ответом загораются."),
    "draw": ("ЧГК клуб: жеребьёвка", "Кандидаты на свободное место; барабан имён."),
    "game-rating": ("ЧГК клуб: рейтинг игры", "Таблица игры по очкам, строки переезжают на новые места."),
    "best-player": ("ЧГК клуб: лучший игрок", "Лучший игрок центрального стола во весь экран."),
    "season-rating": ("ЧГК лига: рейтинг сезона", "Таблица сезона лиги."),
    "final-teams": ("ЧГК лига: финалисты", "Команды, вышедшие в финал сезона."),
    "series": ("ЧГК лига: серия", "Счёт серии «Звёздные войны»."),
    "bug": ("ЧГК: логотип", "Логотип в углу безопасной зоны."),
    "ticker": ("ЧГК: бегущая строка", "Бегущая строка с подписью внизу кадра."),
    "slate": ("ЧГК: заставка", "Полноэкранная заставка: перерыв, скоро начнём, раунд; отсчёт."),
    "credits": ("ЧГК: титры", "Титры с ролями поверх затемнения справа."),
}


def graphic_id(graphic: str) -> str:
    return PREFIX + graphic


def graphic_of(ograf_id: str) -> str | None:
    """Our graphic's name for an OGraf id (`chgk-lower-third` → `lower-third`), or None."""
    name = ograf_id[len(PREFIX):] if isinstance(ograf_id, str) and ograf_id.startswith(PREFIX) else None
    return name if name in GRAPHICS else None


def kind(graphic: str) -> str:
    """cue: draws the controller's data; league: that data names a season or series whose public
    view it fetches from the server; game: draws the server's public game state."""
    return "cue" if graphic in CUE_GRAPHICS else "league" if graphic in LEAGUE_GRAPHICS else "game"


def step_count(graphic: str) -> int:
    return len(STEPS.get(graphic, ())) or 1


def _select(title: str, options: tuple[str, ...], default: str) -> dict:
    return {"type": "string", "title": title, "enum": list(options), "default": default, "gddType": "select",
            "gddOptions": {"labels": {o: o for o in options}}}


# The component's own load data: the page's language and theme; game graphics also say which
# server they follow. (Not graphic data: the Server API drops these before a take.)
COMMON = {
    "lang": {**_select("Language", ("ru", "uk", "en"), "ru"), "description": "Read at load only."},
    "theme": {**_select("Theme", ("classic", "light"), "classic"), "description": "Read at load only."},
}
SERVER = {"server": {"type": "string", "title": "chgk-overlay server (http://host:port)", "maxLength": 300,
                     "gddType": "single-line"}}
OWN_FIELDS = (*COMMON, *SERVER)


# A choice's default where the graphic has one when it is not given: a controller's form shows it
# selected (SuperFly's fills every field, and a select with no default with nothing).
CHOICE_DEFAULTS = {"lower-third": {"kind": "player", "style": "plain"}, "bug": {"corner": "top-right"},
                   "slate": {"kind": "break"}}


def data_schema(graphic: str, server: str | None = None) -> dict:
    """The manifest's `schema`: the graphic's data as the desk declares it (overlay/schema, GDD
    types — one declaration for every door) less what the server writes itself at a take
    (`readOnly`: a QR code's modules, a slate's end, the question's step — a form must not fill
    them), plus the component's own load data; `server`, the address the export came from, is
    the default a game graphic follows."""
    declared = graphic_schema(graphic)
    out = {k: v for k, v in declared.items() if k != "$schema"}
    props = {k: {**v, **({"default": CHOICE_DEFAULTS[graphic][k]} if k in CHOICE_DEFAULTS.get(graphic, {}) else {})}
             for k, v in declared["properties"].items() if not v.get("readOnly")}
    own = {} if kind(graphic) == "cue" else {"server": {**SERVER["server"], **({"default": server} if server else {})}}
    out["properties"] = {**props, **COMMON, **own}
    if "required" in out:
        out["required"] = [k for k in out["required"] if k in out["properties"]]
    return out


def manifest(graphic: str, server: str | None = None) -> dict:
    name, description = NAMES[graphic]
    live = {"cue": "",
            "game": " Game data: the public state of the chgk-overlay server named in `server` (Socket.IO /overlay).",
            "league": " League data: the public league view of the chgk-overlay server named in `server`."}[kind(graphic)]
    out: dict[str, Any] = {
        "$schema": SCHEMA_URL,
        "id": graphic_id(graphic),
        "version": VERSION,
        "name": name,
        "description": description + live,
        "author": AUTHOR,
        "main": f"ograf/chgk/{graphic}.mjs",
        "supportsRealTime": True,
        "supportsNonRealTime": False,
        "stepCount": step_count(graphic),
        "schema": data_schema(graphic, server),
        "customActions": [{"id": "replay", "name": "Повторить появление",
                           "description": "Take the graphic out at once and play its entrance again.",
                           "schema": {"type": "object", "properties": {}}}],
        "renderRequirements": [{"resolution": {"width": {"ideal": 1920}, "height": {"ideal": 1080}}}],
        "thumbnails": [{"file": f"ograf/chgk/thumbnails/{graphic}.png", "resolution": {"width": 384, "height": 216}}],
        "v_chgk": {"graphic": graphic, "kind": kind(graphic), "steps": list(STEPS.get(graphic, ()))},
    }
    return out


def manifests() -> dict[str, dict]:
    """{OGraf id: manifest} of every on-air graphic."""
    return {graphic_id(g): manifest(g) for g in GRAPHICS}


def problems(doc: Any) -> list[str]:
    """What is wrong with a manifest by our OGraf v1 manifest schema ([] when it is valid)."""
    return manifest_schema.problems(doc)
