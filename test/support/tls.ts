import { execFileSync } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

/** A certificate authority and a server certificate it signed, made with openssl for one test file. */
export interface TestCerts {
  dir: string;
  /** PEM of the CA that signed the server certificate. */
  ca: string;
  /** PEM of another CA, which signed nothing the server holds. */
  otherCa: string;
  caFile: string;
  otherCaFile: string;
  certFile: string;
  keyFile: string;
  /** redis-server arguments that serve TLS on `port` with the server certificate. */
  serverArgs(port: number): string[];
  remove(): void;
}

const openssl = (dir: string, args: string[]): void => {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
};

function makeCa(dir: string, name: string): void {
  openssl(dir, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '2', '-subj', `/CN=${name}`,
    '-keyout', `${name}.key`, '-out', `${name}.crt`]);
}

/** Makes a CA, a server certificate for 127.0.0.1 and localhost signed by it, and a second, unrelated CA. */
export function makeTestCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'echomq-tls-'));
  makeCa(dir, 'echomq-test-ca');
  makeCa(dir, 'echomq-other-ca');
  openssl(dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-subj', '/CN=localhost', '-keyout', 'server.key', '-out', 'server.csr']);
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  openssl(dir, ['x509', '-req', '-in', 'server.csr', '-CA', 'echomq-test-ca.crt', '-CAkey', 'echomq-test-ca.key',
    '-CAcreateserial', '-days', '2', '-sha256', '-extfile', 'server.ext', '-out', 'server.crt']);
  const caFile = join(dir, 'echomq-test-ca.crt');
  const otherCaFile = join(dir, 'echomq-other-ca.crt');
  const certFile = join(dir, 'server.crt');
  const keyFile = join(dir, 'server.key');
  return {
    dir, caFile, otherCaFile, certFile, keyFile,
    ca: readFileSync(caFile, 'utf8'),
    otherCa: readFileSync(otherCaFile, 'utf8'),
    serverArgs: (port) => ['--tls-port', String(port), '--tls-cert-file', certFile, '--tls-key-file', keyFile,
      '--tls-ca-cert-file', caFile, '--tls-auth-clients', 'no'],
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
