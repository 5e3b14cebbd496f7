from hypothesis import given
from hypothesis import strategies as st

from overlay.rules.table import next_unplayed


def test_unplayed_landing_is_kept():
    assert next_unplayed([False] * 13, 5) == 5


def test_played_landing_moves_clockwise():
    played = [False] * 13
    played[4] = played[5] = True
    assert next_unplayed(played, 5) == 7


def test_wraps_from_last_to_first():
    played = [False] + [True] * 12
    assert next_unplayed(played, 12) == 1


def test_all_played_gives_none():
    assert next_unplayed([True] * 13, 3) is None


@given(st.lists(st.booleans(), min_size=2, max_size=24), st.data())
def test_result_is_the_first_unplayed_clockwise(played, data):
    landed = data.draw(st.integers(1, len(played)))
    chosen = next_unplayed(played, landed)
    if all(played):
        assert chosen is None
        return
    assert not played[chosen - 1]
    steps = (chosen - landed) % len(played)
    between = [(landed - 1 + k) % len(played) for k in range(steps)]
    assert all(played[i] for i in between)
