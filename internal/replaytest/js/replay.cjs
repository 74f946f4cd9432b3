// Drives ReplayWeb.page in headless Chromium for replay_test.go.
//
// node replay.cjs JOB.json
//
// JOB: {modules, chromium, base, outDir, timeoutMs, checks: [{name, url, ts,
// screenshot}]}. For each check it opens BASE/embed?url=URL&ts=TS (a page
// holding ReplayWeb.page's <replay-web-page> element over the archive),
// waits for the replayed page's frame (/replay/w/<coll>/<ts>mp_/<url>),
// reads its text, then fetches the same capture in raw mode (id_) through
// ReplayWeb.page's service worker. It prints one JSON object: {results:
// [{name, frameUrl, title, text, rawUrl, rawStatus, rawHeaders, rawBase64,
// ms, reloads}]}; the Go test judges them.
"use strict";

const fs = require("fs");
const path = require("path");

const job = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const puppeteer = require(path.join(job.modules, "puppeteer-core"));

const replayFrameRe = /\/replay\/w\/[^/]+\/(\d+)mp_\//;

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

// replayFrame waits for the frame replaying url, loaded with some text. If
// none has appeared by reloadAt, it reloads the page once, as a reader
// would: ReplayWeb.page's frame can start loading before its service worker
// is active in a cold browser profile, and then waits for nothing.
async function replayFrame(page, url, reloadAt, deadline, onReload) {
  let last = "";
  let reloaded = false;
  while (Date.now() < deadline) {
    if (!reloaded && Date.now() > reloadAt && last === "") {
      reloaded = true;
      onReload();
      await page.reload({ waitUntil: "load" });
      continue;
    }
    for (const f of page.frames()) {
      const fu = f.url();
      if (!replayFrameRe.test(fu) || !fu.endsWith("mp_/" + url)) {
        continue;
      }
      try {
        const st = await f.evaluate(() => ({
          ready: document.readyState,
          text: document.body ? document.body.innerText : "",
        }));
        last = fu + " " + st.ready;
        if (st.ready === "complete" && st.text.trim() !== "") {
          return f;
        }
      } catch (e) {
        last = fu + " " + e.message; // navigating: try again
      }
    }
    await sleep(100);
  }
  const urls = page.frames().map((f) => f.url());
  throw new Error(
    `no replayed frame for ${url} (last: ${last}; frames: ${urls.join(" | ")})`,
  );
}

// appFrame is the ReplayWeb.page app frame: under the service worker's
// scope, and not rewritten by wombat, so its fetch is a plain fetch.
function appFrame(page) {
  return page
    .frames()
    .find((f) => /^\/replay\/(index\.html)?$/.test(new URL(f.url()).pathname));
}

async function main() {
  const browser = await puppeteer.launch({
    executablePath: job.chromium,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--no-first-run",
      "--no-default-browser-check",
    ],
  });
  const results = [];
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1100, height: 800 });
    const consoleLines = [];
    page.on("console", (m) => consoleLines.push(m.text()));
    for (const [i, c] of job.checks.entries()) {
      const start = Date.now();
      // The first check also starts the browser's service worker: twice
      // the time.
      const budget = i === 0 ? 2 * job.timeoutMs : job.timeoutMs;
      const deadline = start + budget;
      let reloads = 0;
      const embed =
        job.base +
        "/embed?url=" +
        encodeURIComponent(c.url) +
        "&ts=" +
        encodeURIComponent(c.ts);
      await page.goto(embed, { waitUntil: "load" });
      let frame;
      try {
        frame = await replayFrame(page, c.url, start + budget / 2, deadline, () => reloads++);
      } catch (e) {
        e.message += "; console: " + consoleLines.slice(-10).join(" / ");
        throw e;
      }
      const frameUrl = frame.url();
      const got = await frame.evaluate(() => ({
        title: document.title,
        text: document.body.innerText,
      }));
      const rawUrl = frameUrl.replace(replayFrameRe, (m, ts) =>
        m.replace(ts + "mp_/", ts + "id_/"),
      );
      const app = appFrame(page);
      if (!app) {
        throw new Error("no ReplayWeb.page app frame under /replay/: " + page.frames().map((f) => f.url()).join(" | "));
      }
      const raw = await app.evaluate(async (u) => {
        const r = await fetch(u, { cache: "no-store" });
        const b = new Uint8Array(await r.arrayBuffer());
        let s = "";
        for (let i = 0; i < b.length; i += 0x8000) {
          s += String.fromCharCode.apply(null, b.subarray(i, i + 0x8000));
        }
        return {
          status: r.status,
          headers: Object.fromEntries(r.headers.entries()),
          base64: btoa(s),
        };
      }, rawUrl);
      if (c.screenshot) {
        // Let fonts and layout settle before the picture.
        await sleep(300);
        await page.screenshot({
          path: path.join(job.outDir, c.name + ".png"),
        });
      }
      results.push({
        name: c.name,
        frameUrl,
        title: got.title,
        text: got.text,
        rawUrl,
        rawStatus: raw.status,
        rawHeaders: raw.headers,
        rawBase64: raw.base64,
        ms: Date.now() - start,
        reloads,
      });
    }
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify({ results }));
}

main().catch((e) => {
  process.stderr.write(String((e && e.stack) || e) + "\n");
  process.exit(1);
});
