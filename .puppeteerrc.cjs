// Puppeteer arrives only as a dependency of a benchmark peer (DesktopCommander's
// md-to-pdf); Pincer never runs it. No browser download at install time.
module.exports = { skipDownload: true };
