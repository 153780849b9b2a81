// The playground page: runs a scenario through the API, shows its evidence, and checks hashes
// and signatures in the browser (verify.js). No framework and no build step.
import { payloadHash, verifyToken } from '/playground/static/verify.js';

const $ = (id) => document.getElementById(id);

function text(id, value) {
  $(id).textContent = value ?? '';
}

function shellQuote(value) {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

function setDecision(element, value) {
  element.textContent = value.replace('_', ' ');
  element.dataset.value = value;
}

function addItem(list, ok, message) {
  const item = document.createElement('li');
  item.className = ok ? 'ok' : 'bad';
  item.textContent = `${ok ? '✓' : '✗'} ${message}`;
  list.append(item);
}

async function fetchJson(url, init) {
  const response = await fetch(url, init);
  const body = await response.json();
  if (!response.ok) throw new Error(body?.error?.message ?? `HTTP ${response.status}`);
  return body;
}

function selectTab(name) {
  for (const tab of ['result', 'curl']) {
    const selected = tab === name;
    $(`tab-${tab}`).setAttribute('aria-selected', String(selected));
    $(`tab-${tab}`).tabIndex = selected ? 0 : -1;
    $(`panel-${tab}`).hidden = !selected;
  }
  $(`tab-${name}`).focus();
}

function verifyRun(run) {
  const list = $('verify-list');
  list.replaceChildren();
  let ok = true;
  const recomputed = payloadHash(run.verify.payload);
  const hashOk = recomputed === run.verify.payloadHash;
  ok &&= hashOk;
  addItem(list, hashOk, `payload hash recomputed here as sha256(JCS(payload)) = ${recomputed}${hashOk ? '' : `, but the server said ${run.verify.payloadHash}`}`);
  if (run.id === 'approval-payload-mismatch') {
    const executed = payloadHash(run.payload);
    const differs = executed === run.evidence.executedPayloadHash && executed !== run.verify.payloadHash;
    ok &&= differs;
    addItem(list, differs, `the payload presented for execution hashes to ${executed}, not the approved hash`);
  }
  if (run.verify.token) {
    const role = run.verify.token.kind === 'approval' ? 'reviewer' : 'actionpass';
    const checked = verifyToken(run.verify.token.jws, run.keys, { role, payloadHash: run.verify.payloadHash });
    ok &&= checked.ok;
    addItem(list, checked.ok, `${run.verify.token.kind === 'approval' ? 'approval artifact' : 'ActionPass'}: ${checked.message}`);
  }
  addItem(list, true, 'checked with @noble/hashes and @noble/ed25519 in this browser');
  $('verify').dataset.verified = String(ok);
}

function renderExtra(run) {
  const extra = $('extra');
  extra.replaceChildren();
  const add = (title, value) => {
    const h = document.createElement('h3');
    h.textContent = title;
    const pre = document.createElement('pre');
    pre.textContent = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
    extra.append(h, pre);
  };
  const evidence = run.evidence;
  if (run.id === 'external-recipient-step-up') add('After the reviewer signed an approval of this exact payload', evidence.afterApproval);
  if (run.id === 'database-select-only') {
    add('Classified by the PostgreSQL parser', evidence.classifications);
    add('Decisions', { select: evidence.read, update: evidence.write });
    add('Provider backstop (deterministic replay)', evidence.providerBackstop);
  }
  if (run.id === 'mcp-definition-changed') add('Pinned and presented definition hashes', { pinned: evidence.pinnedHash, presented: evidence.presentedHash });
  if (run.id === 'prompt-injection-shell-read') {
    add('The prompt', evidence.prompt);
    add('What the hook answered Claude Code', evidence.hookOutput.stdout);
  }
  if (run.id === 'chat-channel-not-allowlisted') add('Allowed channels', evidence.allowlist.join(', '));
}

let current;

async function showScenario(id) {
  current = id;
  const section = $('scenario');
  section.setAttribute('aria-busy', 'true');
  for (const link of document.querySelectorAll('#scenario-list a')) {
    if (link.dataset.id === id) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  const path = `/api/playground/scenarios/${encodeURIComponent(id)}`;
  text('curl', `curl -s ${shellQuote(location.origin + path)}`);
  let run;
  try {
    run = await fetchJson(path);
  } catch (error) {
    text('scenario-title', 'This scenario could not be run');
    text('scenario-summary', error.message);
    section.setAttribute('aria-busy', 'false');
    return;
  }
  text('scenario-title', run.title);
  text('scenario-summary', run.summary);
  $('scenario-replay').hidden = !run.replay;
  setDecision($('decision'), run.decision);
  text('reasons', run.reasons.join(', '));
  text('action-hash', run.action.actionHash);
  text('payload-hash', run.action.payloadHash);
  text('ledger-hash', run.ledger.hash);
  text('explanation', run.explanation);
  const compare = run.id === 'approval-payload-mismatch';
  $('comparison').hidden = !compare;
  if (compare) {
    text('approved-hash', run.evidence.approvedPayloadHash);
    text('executed-hash', run.evidence.executedPayloadHash);
  }
  $('links').replaceChildren(
    ...run.links.map((link) => {
      const item = document.createElement('li');
      const a = document.createElement('a');
      a.href = link.href;
      a.textContent = link.title;
      item.append(a);
      return item;
    }),
  );
  renderExtra(run);
  text('payload', JSON.stringify(run.payload, null, 2));
  text('evidence', JSON.stringify(run.steps, null, 2));
  verifyRun(run);
  section.dataset.scenario = run.id;
  section.setAttribute('aria-busy', 'false');
}

async function evaluateCommand(command) {
  const body = JSON.stringify({ command });
  text('command-curl', `curl -s -X POST -H 'content-type: application/json' --data ${shellQuote(body)} ${shellQuote(`${location.origin}/api/playground`)}`);
  const box = $('command-result');
  box.hidden = false;
  box.setAttribute('aria-busy', 'true');
  let result;
  try {
    result = await fetchJson('/api/playground', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  } catch (error) {
    setDecision($('command-decision'), 'error');
    text('command-reasons', error.message);
    $('command-actions').tBodies[0].replaceChildren();
    box.setAttribute('aria-busy', 'false');
    return;
  }
  setDecision($('command-decision'), result.decision);
  text('command-reasons', result.reasons.join(', '));
  $('command-actions').tBodies[0].replaceChildren(
    ...result.actions.map((action) => {
      const row = document.createElement('tr');
      row.className = action.fileOperation ? 'file-operation' : 'command';
      const recomputed = payloadHash(action.payload);
      const cells = [action.label, action.decision.replace('_', ' '), action.reasons.join(', '), action.payloadHash, action.ledger.hash, recomputed === action.payloadHash ? '✓ payload hash' : `✗ ${recomputed}`];
      for (const [index, value] of cells.entries()) {
        const cell = document.createElement('td');
        if (index === 3 || index === 4) {
          const code = document.createElement('code');
          code.textContent = value;
          cell.append(code);
        } else cell.textContent = value;
        row.append(cell);
      }
      return row;
    }),
  );
  text('command-evidence', JSON.stringify(result, null, 2));
  box.dataset.command = command;
  box.setAttribute('aria-busy', 'false');
}

async function start() {
  const { scenarios } = await fetchJson('/api/playground');
  $('scenario-list').replaceChildren(
    ...scenarios.map((scenario, index) => {
      const item = document.createElement('li');
      const link = document.createElement('a');
      link.href = `/playground?s=${encodeURIComponent(scenario.id)}`;
      link.dataset.id = scenario.id;
      link.textContent = `${index + 1}. ${scenario.title}`;
      link.addEventListener('click', (event) => {
        event.preventDefault();
        history.pushState({ id: scenario.id }, '', link.href);
        void showScenario(scenario.id);
      });
      item.append(link);
      return item;
    }),
  );
  $('tab-result').addEventListener('click', () => selectTab('result'));
  $('tab-curl').addEventListener('click', () => selectTab('curl'));
  for (const tab of ['tab-result', 'tab-curl']) {
    $(tab).addEventListener('keydown', (event) => {
      if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') selectTab(tab === 'tab-result' ? 'curl' : 'result');
    });
  }
  $('rerun').addEventListener('click', () => void showScenario(current));
  $('command-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void evaluateCommand($('command').value);
  });
  window.addEventListener('popstate', () => void showScenario(new URLSearchParams(location.search).get('s') ?? scenarios[0].id));
  const requested = new URLSearchParams(location.search).get('s');
  await showScenario(requested ?? scenarios[0].id);
}

void start();
