/**
 * A real browser for report tests: Debian's Chromium driven by playwright-core (which never
 * downloads a browser), headless, with a fresh profile, and every request the page makes
 * intercepted: a `file:` load of the report itself is let through, anything else is aborted
 * and recorded.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { tempDir } from "../helpers.js";

// The page's globals, for the functions evaluated inside the page (this project compiles without the DOM library).
declare const document: any;
declare const window: any;

export const CHROMIUM = process.env.HERMIT_CHROMIUM ?? "/usr/bin/chromium";

/** Why the browser tests cannot run here (undefined: they can). */
export const noChromium = existsSync(CHROMIUM) ? undefined : `chromium: ${CHROMIUM} not found (Debian package chromium; .ci/run installs it; HERMIT_CHROMIUM points elsewhere)`;

export interface OpenedPage {
  page: Page;
  /** Every request the page made, by URL (the report's own file first). */
  requests: string[];
  /** Console errors and warnings, and uncaught page errors. */
  problems: string[];
  /** Milliseconds from navigation start until the page's script had drawn everything (the browser's clock). */
  renderMs: number;
  close(): Promise<void>;
}

export async function openReport(file: string, viewport = { width: 1300, height: 900 }): Promise<OpenedPage> {
  const context: BrowserContext = await chromium.launchPersistentContext(await tempDir("hermit-chromium-"), {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    viewport,
  });
  const requests: string[] = [];
  const problems: string[] = [];
  const target = `file://${file}`;
  await context.route("**/*", async (route) => {
    const url = route.request().url();
    requests.push(url);
    if (url === target) await route.continue();
    else await route.abort();
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") problems.push(`${message.type()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  await page.goto(target, { waitUntil: "load" });
  await page.waitForFunction(() => window.hermitReport !== undefined, undefined, { timeout: 20_000 });
  // From navigation start to the end of the page's script (charts drawn), as the browser measured it.
  const renderMs = Math.round(await page.evaluate(() => window.performance.getEntriesByName("hermit-report-drawn")[0]?.startTime ?? Number.NaN));
  return { page, requests, problems, renderMs, close: () => context.close() };
}

/** A full-page screenshot into `dir` (kept with the test's temp files; look at it). */
export async function screenshot(opened: OpenedPage, dir: string, name: string): Promise<string> {
  const path = join(dir, `${name}.png`);
  await opened.page.screenshot({ path, fullPage: true });
  return path;
}

/** One screenshot per section of the page (`<name>-<section>.png`), readable at full size. */
export async function sectionShots(opened: OpenedPage, dir: string, name: string): Promise<void> {
  for (const id of await opened.page.evaluate(() => [...document.querySelectorAll("section[id]")].map((section: any) => section.id as string))) {
    await opened.page.locator(`section#${id}`).screenshot({ path: join(dir, `${name}-${id}.png`) });
  }
}

/** What the page shows, read from the DOM and the chart. */
export async function pageFacts(page: Page) {
  return page.evaluate(() => {
    const report = window.hermitReport;
    const all = (selector: string, root: any = document): any[] => [...root.querySelectorAll(selector)];
    const cells = all("svg.heatmap").map((svg) => ({
      id: svg.getAttribute("data-heatmap") as string,
      cells: all("rect[data-state]", svg).map((rect) => ({
        row: Number(rect.getAttribute("data-row")),
        col: Number(rect.getAttribute("data-col")),
        state: rect.getAttribute("data-state") as string,
        fill: rect.getAttribute("fill") as string,
      })),
    }));
    return {
      chartX: (report.charts.score?.data[0] ?? null) as number[] | null,
      chartCandidate: (report.charts.score?.data[2] ?? null) as Array<number | null> | null,
      timeX: (report.charts.time?.data[0] ?? null) as number[] | null,
      strip: all("svg.status-strip g[data-step]").map((g) => ({
        step: Number(g.getAttribute("data-step")),
        status: g.getAttribute("data-status") as string,
        repaired: g.getAttribute("data-repaired") === "true",
      })),
      rows: all("table.steps tbody tr").map((tr) => ({ step: Number(tr.getAttribute("data-step")), status: tr.getAttribute("data-status") as string, text: tr.innerText as string })),
      lineage: all("svg.lineage g.lineage-node").map((g) => ({
        node: g.getAttribute("data-node") as string,
        status: g.getAttribute("data-status") as string,
        commit: g.getAttribute("data-commit") as string | null,
        parent: g.getAttribute("data-parent") as string | null,
      })),
      heatmaps: cells,
      embedded: JSON.parse(document.getElementById("report-data").textContent),
    };
  });
}

/**
 * Open a step's block and wait for its diff: the page draws diffs in the block's `toggle`
 * event, which fires after the click returns, so reading the block at once races it.
 */
export async function openStep(page: Page, id: string): Promise<void> {
  await page.click(`#${id} > summary`);
  await page.locator(`#${id} [data-files="diff"] > p`).waitFor({ state: "attached" });
}
