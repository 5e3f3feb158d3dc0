#!/usr/bin/env node
// `npm test`: the jest projects, once, on Debian's redis-server (or REDIS_SERVER_BIN) — or, with
// EMQ_SERVER_BINS="/path/a /path/b" set, the unit and pack projects once and the server-backed projects
// (integration, e2e, faults, and ioredis6: a subset again on ioredis 6) once per binary, each run
// labelled with the version the server reports, summed into one result. Any jest arguments pass through; `--json --outputFile=F` gets
// the merged results written to F.
'use strict';
const { spawn, spawnSync } = require('child_process');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');

const ROOT = path.join(__dirname, '..', '..');
const JEST = require.resolve('jest/bin/jest', { paths: [ROOT] });
const SERVER_PROJECTS = ['integration', 'e2e', 'faults', 'ioredis6'];

const say = (line) => process.stdout.write(`[matrix] ${line}\n`);

/** Runs jest with the given arguments and environment; resolves with its exit code. */
function jest(args, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [JEST, '--runInBand', ...args], { cwd: ROOT, env, stdio: 'inherit' });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/** A free loopback port other than 6379. */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => (port === 6379 ? freePort().then(resolve, reject) : resolve(port)));
    });
  });
}

/** Whether a server on the port answers PING (a raw socket, so nothing is left behind). */
function pong(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (d) => done(String(d).startsWith('+PONG')));
  });
}

/**
 * Checks that `bin` exists and starts (it answers PING on a private port), and reads the version
 * it reports of itself. Rejects with a message naming the binary.
 */
async function probeServer(bin) {
  const version = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  if (version.error) throw new Error(`server binary "${bin}" cannot be run (${version.error.code || version.error.message})`);
  const first = `${version.stdout}`.split('\n')[0];
  const m = /^(\S+) server v=(\S+)/i.exec(first);
  const label = m ? `${m[1]} ${m[2]}` : first.trim() || bin;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'echomq-matrix-'));
  const port = await freePort();
  const child = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  try {
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`server binary "${bin}" exited at start: ${stderr.trim() || `code ${child.exitCode}`}`);
      if (await pong(port)) break;
      if (Date.now() > deadline) throw new Error(`server binary "${bin}" did not answer PING within 10 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return label;
}

/** Splits off `--json` and `--outputFile` (ours to set per run) from the other jest arguments. */
function splitArgs(argv) {
  let outputFile;
  let json = false;
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') json = true;
    else if (a.startsWith('--outputFile=')) outputFile = a.slice('--outputFile='.length);
    else if (a === '--outputFile') outputFile = argv[++i];
    else rest.push(a);
  }
  return { json, outputFile, rest };
}

function readResults(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** One failed suite standing for a run that produced no results (a bad binary, a crashed jest). */
function failedRun(label, message) {
  return {
    numPassedTests: 0, numFailedTests: 0,
    testResults: [{ name: `server matrix: ${label}`, status: 'failed', message, assertionResults: [] }],
  };
}

/** Passed and failed counts as .ci/run counts them (a suite failing outside any test counts one). */
function count(r) {
  const failedSuites = r.testResults.filter((s) => s.status === 'failed' && s.assertionResults.every((a) => a.status !== 'failed')).length;
  return { passed: r.numPassedTests, failed: r.numFailedTests + failedSuites };
}

async function matrix(bins, argv) {
  const { outputFile, rest } = splitArgs(argv);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'echomq-matrix-results-'));
  const runs = [];
  const probed = [];
  for (const bin of bins) {
    try {
      probed.push({ bin, label: await probeServer(bin) });
    } catch (err) {
      say(`FAILED: ${err.message}`);
      runs.push({ label: bin, results: failedRun(bin, err.message) });
    }
  }
  say(`servers: ${probed.map((p) => `${p.label} (${p.bin})`).join(', ') || 'none that start'}`);

  const unitFile = path.join(tmp, 'unit.json');
  // NOTE: the pack project checks the tarball, not a server: it runs once, with the unit project.
  say('unit (no server), pack (the tarball, once)');
  await jest(['--selectProjects', 'unit', 'pack', '--json', `--outputFile=${unitFile}`, ...rest], process.env);
  runs.unshift({ label: 'unit, pack', results: readResults(unitFile) ?? failedRun('unit, pack', 'jest wrote no results') });

  for (const [i, { bin, label }] of probed.entries()) {
    const file = path.join(tmp, `server-${i}.json`);
    say(`${label} (${bin}): ${SERVER_PROJECTS.join(', ')}`);
    const env = { ...process.env, REDIS_SERVER_BIN: bin, EMQ_SERVER_LABEL: label };
    await jest(['--selectProjects', ...SERVER_PROJECTS, '--json', `--outputFile=${file}`, ...rest], env);
    runs.push({ label, results: readResults(file) ?? failedRun(label, 'jest wrote no results') });
  }

  const merged = { numPassedTests: 0, numFailedTests: 0, numTotalTests: 0, success: true, testResults: [] };
  let passed = 0;
  let failed = 0;
  for (const { label, results } of runs) {
    const c = count(results);
    say(`${label}: ${c.passed} passed, ${c.failed} failed`);
    passed += c.passed;
    failed += c.failed;
    merged.numPassedTests += results.numPassedTests;
    merged.numFailedTests += results.numFailedTests;
    merged.numTotalTests += results.numTotalTests ?? results.numPassedTests + results.numFailedTests;
    for (const suite of results.testResults) merged.testResults.push({ ...suite, server: label });
  }
  merged.success = failed === 0;
  say(`all runs: ${passed} passed, ${failed} failed`);
  if (outputFile) fs.writeFileSync(outputFile, JSON.stringify(merged));
  fs.rmSync(tmp, { recursive: true, force: true });
  return failed === 0 ? 0 : 1;
}

async function main() {
  const argv = process.argv.slice(2);
  const bins = (process.env.EMQ_SERVER_BINS ?? '').split(/\s+/).filter(Boolean);
  if (bins.length === 0) return jest(argv, process.env);
  return matrix(bins, argv);
}

main().then((code) => process.exit(code), (err) => {
  say(`FAILED: ${err.stack || err}`);
  process.exit(1);
});
