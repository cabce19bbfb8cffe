// Drives a running code-server with headless Chromium (Debian's /usr/bin/chromium through
// playwright-core, no browser download): opens the workspace's manifest.py, waits for the
// torchcts-lsp squiggle, checks the hovers and the quick fix, and takes screenshots.
//
//   node e2e.mjs URL WORKSPACE SCREENSHOT_DIR
// Exit status 0 only when every check passed; the last line is the summary.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(path.join(path.dirname(new URL(import.meta.url).pathname), "work", "package.json"));
const { chromium } = require("playwright-core");

const [url, workspace, shotDir] = process.argv.slice(2);
if (!url || !workspace || !shotDir) {
  console.error("usage: node e2e.mjs URL WORKSPACE SCREENSHOT_DIR");
  process.exit(2);
}
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const T0 = Date.now();
const secs = () => ((Date.now() - T0) / 1000).toFixed(1);

let passed = 0;
let failed = 0;
let aborted = false;
async function check(name, fn) {
  if (aborted) {
    failed++;
    console.log(`not ok - ${name}: not run (an earlier step failed)`);
    return;
  }
  const t = Date.now();
  try {
    await fn();
    passed++;
    console.log(`ok - ${name} (${((Date.now() - t) / 1000).toFixed(1)}s, at ${secs()}s)`);
  } catch (e) {
    failed++;
    aborted = true;
    console.log(`not ok - ${name}: ${String(e && e.message ? e.message : e).split("\n")[0]}`);
  }
}

const profile = fs.mkdtempSync(path.join(os.tmpdir(), "torchcts-e2e-chromium-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM,
  headless: true, // Playwright passes --headless
  viewport: { width: 1280, height: 800 },
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
const page = context.pages()[0] ?? (await context.newPage());
const consoleErrors = [];
page.on("console", (m) => {
  if (m.type() === "error") consoleErrors.push(m.text());
});

const editor = page.locator(".editor-instance .monaco-editor").first();
const hoverWidget = page.locator(".monaco-hover:not(.hidden)").filter({ hasText: /\S/ }).first();

async function shot(name) {
  const file = path.join(shotDir, name);
  await page.screenshot({ path: file });
  console.log(`# screenshot: ${file}`);
}

async function moveAway() {
  await page.mouse.move(5, 795);
  await page.keyboard.press("Escape");
  await page.waitForTimeout(300);
}

try {
  await check("code-server workbench loads", async () => {
    await page.goto(`${url}/?folder=${encodeURIComponent(workspace)}`, { waitUntil: "domcontentloaded", timeout: 60000 });
    await page.locator(".monaco-workbench").waitFor({ timeout: 90000 });
    await page.locator(".explorer-folders-view, .explorer-viewlet").first().waitFor({ timeout: 60000 });
  });

  await check("manifest.py opens in an editor", async () => {
    // Quick Open, as a person would.
    await page.locator(".monaco-workbench").click({ position: { x: 640, y: 400 } }).catch(() => {});
    await page.keyboard.press("Control+P");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ timeout: 15000 });
    await input.fill("backend/manifest.py");
    await page.locator(".quick-input-list .monaco-list-row").first().waitFor({ timeout: 15000 });
    await page.keyboard.press("Enter");
    await page.locator('.tab[aria-label*="manifest.py"]').first().waitFor({ timeout: 15000 });
    await editor.locator(".view-line", { hasText: "semantic_level" }).first().waitFor({ timeout: 15000 });
  });

  await check("torchcts-lsp's error squiggle appears on 'generator'", async () => {
    await editor.locator(".squiggly-error").first().waitFor({ timeout: 90000 });
  });

  await check("the TorchCTS status bar item is shown", async () => {
    await page.locator(".statusbar-item", { hasText: "TorchCTS" }).first().waitFor({ timeout: 15000 });
  });

  await check('hover on the squiggle shows "Unknown capabilities key \'generator\'"', async () => {
    const token = editor.locator(".view-line span span", { hasText: /^"?generator"?$/ }).first();
    await token.hover();
    await hoverWidget.waitFor({ timeout: 15000 });
    await page.locator(".monaco-hover", { hasText: "Unknown capabilities key 'generator'" }).first().waitFor({ timeout: 15000 });
    await page.waitForTimeout(500);
    await shot("vscode-diagnostic-hover.png");
    await moveAway();
  });

  await check('hover on "semantic_level" shows the server\'s documentation', async () => {
    const token = editor.locator(".view-line span span", { hasText: /semantic_level/ }).first();
    await token.hover();
    const hover = page.locator(".monaco-hover", { hasText: "semantic_level" }).first();
    await hover.waitFor({ timeout: 15000 });
    const text = (await hover.innerText()).replace(/\s+/g, " ").trim();
    console.log(`# hover text: ${text.slice(0, 160)}`);
    if (text.length < 20) throw new Error(`hover too short: ${JSON.stringify(text)}`);
    await page.waitForTimeout(500);
    await shot("vscode-hover.png");
    await moveAway();
  });

  await check("the quick fix menu offers \"Replace with 'device_generator'\"", async () => {
    const token = editor.locator(".view-line span span", { hasText: /^"?generator"?$/ }).first();
    await token.click();
    await page.keyboard.press("Control+.");
    const item = page.locator(".action-widget, .context-view", { hasText: "device_generator" }).first();
    await item.waitFor({ timeout: 15000 });
    await page.waitForTimeout(300);
    await shot("vscode-quickfix.png");
    await page.keyboard.press("Escape");
  });

  // The support record (issue 26): the page in a webview beside the manifest; a click on an
  // entry in the page puts the manifest's cursor on its line (the page posts the line).
  await check("TorchCTS: Open Support Record shows the page; a click on an entry goes to its line", async () => {
    await page.keyboard.press("Control+Shift+P");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ timeout: 15000 });
    await input.fill(">TorchCTS: Open Support Record");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "Open Support Record" }).first().waitFor({ timeout: 15000 });
    await page.keyboard.press("Enter");
    await page.locator(".tab", { hasText: "Support record" }).first().waitFor({ timeout: 30000 });
    const record = page.frameLocator("iframe.webview.ready").frameLocator("#active-frame");
    await record.locator("h1", { hasText: "TorchCTS support record" }).waitFor({ timeout: 60000 });
    await record.locator("#chart g.bar").first().waitFor({ timeout: 15000 });
    await record.locator("#matrix-table tbody tr").first().waitFor({ timeout: 15000 });
    await page.waitForTimeout(500);
    await shot("vscode-support-record.png");
    // `semantic_level` is on line 6 of the workspace's manifest.
    await record.locator("#entries tr[data-line='6']").first().click();
    await page.locator(".statusbar-item", { hasText: /Ln 6, Col 1/ }).first().waitFor({ timeout: 15000 });
  });
} finally {
  if (failed > 0) {
    const failShot = path.join(process.env.E2E_FAILURE_DIR || os.tmpdir(), "vscode-e2e-failure.png");
    await page.screenshot({ path: failShot }).catch(() => {});
    console.log(`# failure screenshot: ${failShot}`);
    for (const e of consoleErrors.slice(-10)) console.log(`# browser console error: ${e.slice(0, 300)}`);
  }
  await context.close().catch(() => {});
  fs.rmSync(profile, { recursive: true, force: true });
}

console.log(`vscode e2e (code-server, ${secs()}s): ${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
