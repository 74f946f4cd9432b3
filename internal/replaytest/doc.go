// Package replaytest checks that a real replay client, ReplayWeb.page (its
// wabac.js service worker) in headless Chromium, replays warcdedup's output
// right: each exact and near revisit replays the kept page, and a raw (id_)
// fetch of a revisit returns the kept payload whole. The test skips when
// node, the npm packages (see js/package.json and WARCDEDUP_REPLAY_JS) or
// Chromium are missing.
package replaytest
