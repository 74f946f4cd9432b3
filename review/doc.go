// Package review turns a warcdedup report (the JSON lines written by
// --report, see dedup.Duplicate) into one self-contained HTML page on which a
// curator checks the near-duplicate decisions: every near duplicate and
// containment, least confident first, with the evidence the decision rests on
// (method, similarity, shared signatures, site relation, the action and why)
// and the two main texts side by side, their differences highlighted word by
// word.
//
// The page needs no network: its style and its small filter script (by tier
// and by site) are inline. The word diff is computed here, not in the browser,
// and only the differences with a few words of context around them are
// written, each decision's diff inside a closed <details>, so that a report of
// 10,000 decisions makes a page of a few tens of megabytes at most that a
// browser lays out quickly.
//
// The report does not hold the pages' texts. Options.Texts supplies them; the
// helper WARCTexts reads them from the WARC files the report names, with a
// minimal visible-text extraction of its own (VisibleText): package features
// keeps its main-text blocks unexported and its text case-folded.
//
// Opened with the URL fragment #selftest, the page applies a tier filter once
// it has loaded and writes what it saw into <output id="selftest">, which is
// how the browser test checks the script in a real browser.
package review
