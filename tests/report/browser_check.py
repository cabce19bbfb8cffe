#!/usr/bin/env python3
"""Opens a support record (`torchcts-lsp report`) in headless Chromium and checks it.

    browser_check.py PAGE.html SKIPS.json [--screenshot OUT.png]

Chromium is driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`: file
descriptors 3 and 4, messages ending in NUL), with nothing but the standard library. Checks:
  - the level chart (SVG) and the operator x dtype matrix are there;
  - the matrix totals (each cell reads `run/filtered`) equal `skips --format json`'s
    `executable` and its number of `records`;
  - the filter box hides the rows that do not match;
  - a cell's link leads to its list of tests in the page;
  - no request leaves the page (the page's own file is the only one loaded), and the console
    holds no error (a CSP violation is one).
Exit 0 when all hold, 1 with the failures listed otherwise.
"""
import base64
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self):
        exe = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
        if not exe:
            sys.exit("no chromium on PATH (Debian: apt-get install -y chromium)")
        self.profile = tempfile.mkdtemp(prefix="torchcts-report-chromium-")
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()

        def wire():  # the browser reads commands on fd 3, writes answers on fd 4
            # Copies above 4 first, so that neither end is clobbered by the other's dup2.
            r, w = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10), fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
            os.dup2(r, 3)
            os.dup2(w, 4)

        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--remote-debugging-pipe", f"--user-data-dir={self.profile}", "--window-size=1280,1600", "about:blank"],
            preexec_fn=wire, close_fds=False,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            if time.time() > deadline:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=None, timeout=30):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def wait_for(self, method, timeout=30):
        deadline = time.time() + timeout
        for event in self.events:
            if event.get("method") == method:
                return event
        while True:
            event = self._read_message(deadline)
            self.events.append(event)
            if event.get("method") == method:
                return event

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


PAGE_FACTS = r"""
(() => {
  const cells = [...document.querySelectorAll('#matrix-table tbody td a')];
  let run = 0, filtered = 0;
  for (const a of cells) {
    const [r, f] = a.textContent.split('/').map(Number);
    run += r; filtered += f;
  }
  const firstLink = cells[0] ? cells[0].getAttribute('href') : null;
  return {
    chartBars: document.querySelectorAll('#chart g.bar').length,
    chartRects: document.querySelectorAll('#chart rect').length,
    rows: document.querySelectorAll('#matrix-table tbody tr').length,
    cells: cells.length,
    run, filtered,
    headlineRun: Number(document.getElementById('total-run').dataset.count),
    headlineRecords: Number(document.getElementById('total-records').dataset.count),
    firstLink,
    firstLinkTarget: firstLink ? !!document.getElementById(firstLink.slice(1)) : false,
    title: document.title,
  };
})()
"""

FILTER = r"""
(() => {
  const box = document.getElementById('filter');
  box.value = 'add';
  box.dispatchEvent(new Event('input'));
  const rows = [...document.querySelectorAll('#matrix-table tbody tr')];
  const shown = rows.filter(r => !r.hidden);
  const result = {shown: shown.length, all: rows.length,
                  wrong: shown.filter(r => !r.firstElementChild.firstChild.nodeValue.toLowerCase().includes("add")).length,
                  label: document.getElementById('shown').textContent};
  box.value = '';
  box.dispatchEvent(new Event('input'));
  return result;
})()
"""


def evaluate(browser, session, expression):
    answer = browser.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session)
    if "exceptionDetails" in answer:
        raise RuntimeError(f"page script failed: {answer['exceptionDetails']}")
    return answer["result"]["value"]


def check(page, skips, screenshot=None):
    failures = []
    url = "file://" + os.path.abspath(page)
    browser = Browser()
    try:
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Network", "Runtime", "Log"):
            browser.call(f"{domain}.enable", session=session)
        browser.call("Page.navigate", {"url": url}, session)
        browser.wait_for("Page.loadEventFired")
        facts = evaluate(browser, session, PAGE_FACTS)
        filtered = evaluate(browser, session, FILTER)
        # A click on a cell follows its link to the cell's tests.
        clicked = evaluate(browser, session, "(() => { const a = document.querySelector('#matrix-table tbody td a');"
                                             " a.click(); return location.hash === a.getAttribute('href'); })()")
        if screenshot:
            evaluate(browser, session, "window.scrollTo(0, 0); location.hash = ''; true")
            shot = browser.call("Page.captureScreenshot", {"format": "png"}, session)
            with open(screenshot, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
        time.sleep(0.3)  # late console messages
        evaluate(browser, session, "true")
    finally:
        browser.close()

    expected_run = skips["executable"]
    expected_records = len(skips["records"])
    if facts["chartBars"] == 0 or facts["chartRects"] == 0:
        failures.append(f"no level chart: {facts['chartBars']} bars, {facts['chartRects']} rects")
    if facts["rows"] == 0 or facts["cells"] == 0:
        failures.append("no operator x dtype matrix")
    if facts["run"] != expected_run:
        failures.append(f"matrix: {facts['run']} tests run, skips --format json: executable {expected_run}")
    if facts["filtered"] != expected_records:
        failures.append(f"matrix: {facts['filtered']} filtered, skips --format json: {expected_records} records")
    if facts["headlineRun"] != expected_run or facts["headlineRecords"] != expected_records:
        failures.append(f"headline {facts['headlineRun']}/{facts['headlineRecords']} != {expected_run}/{expected_records}")
    if not facts["firstLinkTarget"]:
        failures.append(f"the first cell's link {facts['firstLink']} leads nowhere in the page")
    if not clicked:
        failures.append("a click on a cell did not follow its link")
    if filtered["wrong"] or not 0 < filtered["shown"] < filtered["all"]:
        failures.append(f"the filter box: {filtered}")
    requests = [e["params"]["request"]["url"] for e in browser.events if e.get("method") == "Network.requestWillBeSent"]
    foreign = [u for u in requests if u != url and not u.startswith(url + "#")]
    if foreign:
        failures.append(f"requests left the page: {foreign[:5]}")
    if url not in requests:
        failures.append("the page itself was not seen loading: the request check would see nothing")
    errors = []
    for e in browser.events:
        method, params = e.get("method"), e.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            errors.append(" ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
        elif method == "Runtime.exceptionThrown":
            errors.append(params.get("exceptionDetails", {}).get("text", "exception"))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            errors.append(params["entry"].get("text", ""))
    if errors:
        failures.append(f"console errors: {errors[:5]}")
    print(f"{os.path.basename(page)}: {facts['rows']} operators, {facts['cells']} cells, "
          f"{facts['run']} run / {facts['filtered']} filtered (skips: {expected_run} / {expected_records}), "
          f"{len(requests)} request(s), {len(errors)} console error(s), filter 'add': {filtered['label']}")
    return failures


def main():
    args = sys.argv[1:]
    screenshot = None
    if "--screenshot" in args:
        i = args.index("--screenshot")
        screenshot = args[i + 1]
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    with open(args[1], encoding="utf-8") as f:
        skips = json.load(f)
    failures = check(args[0], skips, screenshot)
    for failure in failures:
        print(f"FAIL: {failure}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
