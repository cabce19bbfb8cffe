"""Oracle for tests/differential.rs: what this CPython's `re` does (any 3.10 to 3.13).

Protocol (UTF-8, one JSON value per line):
  stdin line 1: list of subject strings (the names searched)
  stdin line 2..: one pattern (JSON string) per line
  stdout: one line per pattern: [kind, text, warnings, searches]
    kind      "ok", "error" (re.error) or the exception class name
    text      str(exc) ("" when ok)
    warnings  [[category name, str(message)], ...] in emission order
    searches  one char per subject: "1"/"0" = bool(re.search(p, subject)),
              "E" = re.search raised SystemError,
              "T" = gave up after the time limit (all following subjects
              are then skipped), "" when not ok

re.compile is called from module level (frame depth 1) so that the
RecursionError threshold matches the one pyregex models.
"""
import json
import re
import signal
import sys
import warnings




class Timeout(Exception):
    pass


armed = False


def _alarm(signum, frame):
    # a late signal (after the search returned) is ignored
    if armed:
        raise Timeout()


signal.signal(signal.SIGALRM, _alarm)
TIME_LIMIT = 0.1

names = json.loads(sys.stdin.readline())
out = sys.stdout
for line in sys.stdin:
    p = json.loads(line)
    re.purge()
    compiled = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            compiled = re.compile(p)
            kind, text = "ok", ""
        except re.error as e:
            kind, text = "error", str(e)
        except Exception as e:  # OverflowError, ValueError, RecursionError, ...
            kind, text = type(e).__name__, str(e)
    warns = [[w.category.__name__, str(w.message)] for w in caught]
    res = []
    if compiled is not None:
        for n in names:
            if res and res[-1] == "T":
                # after the first timeout the remaining searches are skipped
                res.append("T")
                continue
            try:
                armed = True
                signal.setitimer(signal.ITIMER_REAL, TIME_LIMIT)
                r = "1" if compiled.search(n) else "0"
                armed = False
            except Timeout:
                armed = False
                r = "T"
            except SystemError:
                # "The span of capturing group is wrong, please report a bug
                # for the re module." (a CPython bug, reproduced by pyregex)
                armed = False
                r = "E"
            signal.setitimer(signal.ITIMER_REAL, 0)
            res.append(r)
    out.write(json.dumps([kind, text, warns, "".join(res)]) + "\n")
out.flush()
