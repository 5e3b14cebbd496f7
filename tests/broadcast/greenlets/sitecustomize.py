"""Loaded by a test's server process (PYTHONPATH): on SIGUSR1 it writes how many green threads are
alive (started, not finished) to the file named by CHGK_TEST_GREENLETS — tests/broadcast/test_held.py."""
import gc
import os
import signal


def _count(*_: object) -> None:
    import greenlet

    gc.collect()
    alive = sum(1 for o in gc.get_objects() if isinstance(o, greenlet.greenlet) and o)
    path = os.environ["CHGK_TEST_GREENLETS"]
    with open(path + ".part", "w") as f:
        f.write(str(alive))
    os.replace(path + ".part", path)


if os.environ.get("CHGK_TEST_GREENLETS"):
    signal.signal(signal.SIGUSR1, _count)
