/**
 * The playground page in a real browser: Debian's chromium (installed by .ci/run, never
 * downloaded by a test tool), driven by playwright-core. Every scenario renders its decision and
 * hashes and verifies in the browser; a tampered ActionPass fails visibly; the evidence panels,
 * the curl tab (whose command, run against the server, returns what the page shows) and the
 * command box work, with the keyboard and on a phone-sized screen. Screenshots go to
 * test-results/playground/.
 */
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPlaygroundApp, type PlaygroundApp } from '../../src/playground/server.js';

const run = promisify(execFile);
const SHOTS = join(import.meta.dirname, '../../test-results/playground');
const CHROMIUM = process.env.SVC_CHROMIUM ?? '/usr/bin/chromium';

let playground: PlaygroundApp;
let base: string;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  playground = await buildPlaygroundApp({ rateLimit: false });
  base = await playground.app.listen({ host: '127.0.0.1', port: 0 });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
});

afterAll(async () => {
  await browser?.close();
  await playground?.close();
});

const HASH = /^sha256:[0-9a-f]{64}$/;

const SCENARIOS: [string, string, string][] = [
  ['approval-payload-mismatch', 'blocked', 'approval_payload_hash_mismatch'],
  ['chat-channel-not-allowlisted', 'deny', 'channel_not_allowlisted'],
  ['external-recipient-step-up', 'step_up', 'external_recipient'],
  ['database-select-only', 'allow', 'rule_allow'],
  ['mcp-definition-changed', 'deny', 'mcp_tool_definition_changed'],
  ['prompt-injection-shell-read', 'deny', 'protected_path_read'],
];

async function openScenario(page: Page, id: string): Promise<void> {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${base}/playground?s=${id}`);
  await page.waitForSelector(`#scenario[data-scenario="${id}"][aria-busy="false"]`);
  expect(errors).toEqual([]);
}

describe('playground page', () => {
  for (const [id, decision, reason] of SCENARIOS) {
    it(`${id}: renders ${decision}, its hashes, and verifies in the browser`, async () => {
      const page = await browser.newPage();
      try {
        await openScenario(page, id);
        expect(await page.getAttribute('#decision', 'data-value')).toBe(decision);
        expect(await page.textContent('#reasons')).toBe(reason);
        for (const field of ['#action-hash', '#payload-hash', '#ledger-hash']) expect(await page.textContent(field)).toMatch(HASH);
        expect(await page.getAttribute('#verify', 'data-verified')).toBe('true');
        expect(await page.textContent('#verify-list')).toContain('@noble/hashes and @noble/ed25519');
        expect(await page.isVisible('#scenario-replay')).toBe(id === 'database-select-only');
        if (id === 'approval-payload-mismatch') {
          const approved = await page.textContent('#approved-hash');
          const executed = await page.textContent('#executed-hash');
          expect(approved).toMatch(HASH);
          expect(executed).toMatch(HASH);
          expect(approved).not.toBe(executed);
          expect(executed).toBe(await page.textContent('#payload-hash'));
          expect(await page.locator('#links a').count()).toBe(2);
          expect(await page.textContent('#verify-list')).toContain('approval artifact: Ed25519 signature valid');
        }
        if (id === 'external-recipient-step-up' || id === 'database-select-only') expect(await page.textContent('#verify-list')).toContain('ActionPass: Ed25519 signature valid');
        if (id === 'database-select-only') expect(await page.textContent('#extra')).toContain('deterministic replay');
        await page.screenshot({ path: join(SHOTS, `${id}.png`), fullPage: true });
      } finally {
        await page.close();
      }
    });
  }

  it('opens the raw payload and API evidence panels on demand', async () => {
    const page = await browser.newPage();
    try {
      await openScenario(page, 'chat-channel-not-allowlisted');
      expect(await page.isVisible('#payload')).toBe(false);
      expect(await page.isVisible('#evidence')).toBe(false);
      await page.click('#payload-panel summary');
      expect(JSON.parse((await page.textContent('#payload')) ?? '')).toMatchObject({ channel: 'random' });
      await page.click('#evidence-panel summary');
      const steps = JSON.parse((await page.textContent('#evidence')) ?? '') as { title: string; response: { decision: { decision: string } } }[];
      expect(steps[0]?.response.decision.decision).toBe('deny');
    } finally {
      await page.close();
    }
  });

  it('the curl tab shows the exact request, and running it returns what the page shows', async () => {
    const page = await browser.newPage();
    try {
      for (const [id] of SCENARIOS) {
        await openScenario(page, id);
        await page.click('#tab-curl');
        expect(await page.isVisible('#panel-curl')).toBe(true);
        const curl = (await page.textContent('#curl')) ?? '';
        expect(curl).toBe(`curl -s '${base}/api/playground/scenarios/${id}'`);
        const { stdout } = await run('sh', ['-c', curl]);
        const answer = JSON.parse(stdout) as { decision: string; reasons: string[]; action: { payloadHash: string } };
        expect(answer.decision).toBe(await page.getAttribute('#decision', 'data-value'));
        expect(answer.reasons.join(', ')).toBe(await page.textContent('#reasons'));
        expect(answer.action.payloadHash).toBe(await page.textContent('#payload-hash'));
        await page.click('#tab-result');
      }
    } finally {
      await page.close();
    }
  });

  it('the command box shows per-file-operation evidence, and its curl returns the same', async () => {
    const page = await browser.newPage();
    try {
      await openScenario(page, 'approval-payload-mismatch');
      await page.fill('#command', 'cp .env /tmp/x');
      await page.press('#command', 'Enter');
      await page.waitForSelector('#command-result[data-command="cp .env /tmp/x"][aria-busy="false"]');
      expect(await page.getAttribute('#command-decision', 'data-value')).toBe('deny');
      expect(await page.textContent('#command-reasons')).toBe('protected_path_read');
      const rows = page.locator('#command-actions tbody tr.file-operation');
      expect(await rows.count()).toBe(2);
      const source = await rows.nth(0).locator('td').allTextContents();
      expect(source[0]).toMatch(/\.env \(cp source\)$/);
      expect(source[1]).toBe('deny');
      expect(source[3]).toMatch(HASH);
      expect(source[4]).toMatch(HASH);
      expect(source[5]).toBe('✓ payload hash');
      await page.screenshot({ path: join(SHOTS, 'command-box.png'), fullPage: true });
      const curl = (await page.textContent('#command-curl')) ?? '';
      const { stdout } = await run('sh', ['-c', curl]);
      const answer = JSON.parse(stdout) as { decision: string; actions: { payloadHash: string }[] };
      expect(answer.decision).toBe('deny');
      expect(answer.actions.map((action) => action.payloadHash)).toContain(source[3]);
    } finally {
      await page.close();
    }
  });

  it('a tampered ActionPass fails the browser check visibly', async () => {
    const page = await browser.newPage();
    try {
      await page.route('**/api/playground/scenarios/external-recipient-step-up', async (route) => {
        const response = await route.fetch();
        const body = (await response.json()) as { verify: { token: { jws: string } } };
        const [header, claims, signature] = body.verify.token.jws.split('.') as [string, string, string];
        const altered = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as Record<string, unknown>;
        altered.aud = 'somewhere-else';
        body.verify.token.jws = [header, Buffer.from(JSON.stringify(altered)).toString('base64url'), signature].join('.');
        await route.fulfill({ response, json: body });
      });
      await openScenario(page, 'external-recipient-step-up');
      expect(await page.getAttribute('#verify', 'data-verified')).toBe('false');
      expect(await page.textContent('#verify-list')).toContain('✗ ActionPass: the Ed25519 signature does not verify');
      await page.screenshot({ path: join(SHOTS, 'tampered-pass.png'), fullPage: true });
    } finally {
      await page.close();
    }
  });

  it('is usable with the keyboard and reads on a phone', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    try {
      await openScenario(page, 'chat-channel-not-allowlisted');
      // Nothing wider than the screen.
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await page.screenshot({ path: join(SHOTS, 'phone.png'), fullPage: true });
      // Keyboard: move to the fourth scenario link and open it with Enter.
      await page.focus('#scenario-list li:nth-child(4) a');
      await page.keyboard.press('Enter');
      await page.waitForSelector('#scenario[data-scenario="database-select-only"][aria-busy="false"]');
      expect(page.url()).toBe(`${base}/playground?s=database-select-only`);
      // Tabs: arrow keys switch between Result and curl.
      await page.focus('#tab-result');
      await page.keyboard.press('ArrowRight');
      expect(await page.isVisible('#panel-curl')).toBe(true);
      expect(await page.evaluate<string>('document.activeElement?.id')).toBe('tab-curl');
      await page.keyboard.press('ArrowLeft');
      expect(await page.isVisible('#panel-result')).toBe(true);
      // The evidence panel opens from the keyboard.
      await page.focus('#evidence-panel summary');
      await page.keyboard.press('Enter');
      expect(await page.isVisible('#evidence')).toBe(true);
    } finally {
      await context.close();
    }
  });
});
