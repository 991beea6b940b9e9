// Replays a HAR with Playwright's routeFromHAR, offline (a request the HAR
// does not hold is aborted), and prints the page's text as JSON:
//
//	node replay.mjs <test/npm dir> <chromium> <har file> <url>
import { createRequire } from 'node:module';
import { join } from 'node:path';

const [npmDir, executablePath, har, url] = process.argv.slice(2);
const { chromium } = createRequire(join(npmDir, 'package.json'))('playwright-core');
const browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
try {
  const context = await browser.newContext();
  await context.routeFromHAR(har, { notFound: 'abort' });
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForSelector('body[data-ready="yes"]', { timeout: 20000 });
  console.log(JSON.stringify({ text: await page.locator('body').innerText() }));
} finally {
  await browser.close();
}
