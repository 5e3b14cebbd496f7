"""Hypothesis strategies made from the graphics' schemas (overlay/schema): any data a graphic
takes, of every declared field type, with the characters a spreadsheet makes hard (`|`, `;`,
`\\`, quotes, a leading `=`, line breaks, blank texts)."""
from __future__ import annotations

from hypothesis import strategies as st

from overlay.schema import declared, fields_of, kind_of

TRICKY = "|;\\\"' =+-@\n"
chars = st.one_of(st.characters(blacklist_categories=("Cs", "Cc")), st.sampled_from(TRICKY))


def _text(lo: int, hi: int, *, stripped: bool = False) -> st.SearchStrategy[str]:
    s = st.text(chars, min_size=lo, max_size=min(hi, 24))
    if stripped:  # list entries and row cells lose their outer spaces when cleaned
        s = s.map(str.strip).filter(lambda t: lo <= len(t) <= hi)
    return s.filter(lambda t: "{{" not in t and (not lo or t.strip()))


def value_of(prop: dict) -> st.SearchStrategy:
    kind = kind_of(prop)
    if kind == "text":
        return _text(prop.get("minLength", 0), prop["maxLength"])
    if kind == "number":
        return st.integers(prop["minimum"], prop["maximum"])
    if kind == "duration":
        lo, hi = prop["minimum"], prop["maximum"]
        return st.one_of(st.integers(lo, hi), st.integers(-(-lo // 1000), hi // 1000).map(lambda s: s * 1000))
    if kind == "boolean":
        return st.booleans()
    if kind == "choice":
        return st.sampled_from(prop["enum"])
    if kind == "media":
        return st.one_of(st.from_regex(r"m_[0-9a-f]{4,12}", fullmatch=True),
                         st.just("https://example.org/logo.png"))
    if kind == "colour":
        return st.from_regex(r"#[0-9a-f]{6}", fullmatch=True)
    if kind == "time":
        return st.builds(lambda h, m: f"{h}:{m:02}", st.integers(0, 23), st.integers(0, 59))
    item = prop["items"]
    size = dict(min_size=prop["minItems"], max_size=min(prop["maxItems"], 5))
    if kind == "list":
        return st.lists(_text(1, item["maxLength"], stripped=True), **size)
    cols = item["properties"]
    row = st.fixed_dictionaries(
        {k: _text(max(c.get("minLength", 0), 0), c["maxLength"], stripped=True) for k, c in cols.items() if k in item["required"]},
        optional={k: _text(0, c["maxLength"], stripped=True) for k, c in cols.items() if k not in item["required"]})
    return st.lists(row, **size)


def _hold_together(graphic: str, data: dict) -> dict:
    for rule, names in declared.TOGETHER.get(graphic, ()):
        given = [n for n in names if data.get(n) not in (None, False, "")]
        if rule == "one_of" and not given:
            data[names[0]] = "m_logo"
        if rule == "at_most_one":
            for extra in given[1:]:
                del data[extra]
    return data


def data_for(graphic: str) -> st.SearchStrategy[dict]:
    props = {k: p for k, p in fields_of(graphic).items() if not p.get("readOnly")}
    required = declared.REQUIRED.get(graphic, ())
    return st.fixed_dictionaries({k: value_of(p) for k, p in props.items() if k in required},
                                 optional={k: value_of(p) for k, p in props.items() if k not in required}
                                 ).map(lambda d: _hold_together(graphic, d))
