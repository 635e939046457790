import { X509Certificate } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { describe, expect, it } from '@jest/globals';
import { generate } from 'selfsigned';
import { CA_CERT_FILE, createLocalCa, issueServerCertificate, loadOrCreateLocalCa } from '../../dev/local-ca.js';
import { tempDirs } from '../support/temp-dirs.js';

const freshDir = tempDirs('local-ca');

/** Whether a TLS client that trusts exactly `caPem` accepts the server at `host`. */
async function handshake(cert: { cert: string; key: string }, caPem: string, servername: string): Promise<string> {
  const server = createServer(cert, (_req, res) => res.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await new Promise<string>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, ca: [caPem], servername }, () => {
        socket.end();
        resolve('trusted');
      });
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    });
  } finally {
    server.close();
    server.closeAllConnections();
  }
}

describe('the local CA', () => {
  it('is created once in its folder, the key readable by the owner only, and read back the same afterwards', async () => {
    const dir = freshDir();
    const first = await loadOrCreateLocalCa(dir);
    expect(first.certFile).toBe(join(dir, CA_CERT_FILE));
    expect(readFileSync(first.certFile, 'utf8')).toBe(first.certPem);
    expect(statSync(join(dir, 'ca-key.pem')).mode & 0o777).toBe(0o600);
    const again = await loadOrCreateLocalCa(dir);
    expect(again.certPem).toBe(first.certPem);
    const cert = new X509Certificate(first.certPem);
    expect(cert.ca).toBe(true);
    // Short-lived: 90 days, replaced 30 days before it ends.
    expect(Date.parse(cert.validTo) - Date.now()).toBeGreaterThan(85 * 86_400_000);
    expect(Date.parse(cert.validTo) - Date.now()).toBeLessThan(91 * 86_400_000);
  });

  it('gives two processes starting at once the same CA', async () => {
    const dir = freshDir();
    const [a, b] = await Promise.all([loadOrCreateLocalCa(dir), loadOrCreateLocalCa(dir)]);
    expect(a.certPem).toBe(b.certPem);
  });

  it('refuses a damaged CA with what to delete, rather than serving a certificate nobody trusts', async () => {
    const dir = freshDir();
    await loadOrCreateLocalCa(dir);
    writeFileSync(join(dir, 'ca-key.pem'), (await createLocalCa()).keyPem);
    await expect(loadOrCreateLocalCa(dir)).rejects.toThrow(/key does not match.*delete .*ca\.pem and .*ca-key\.pem/);
    writeFileSync(join(dir, CA_CERT_FILE), 'not a certificate');
    await expect(loadOrCreateLocalCa(dir)).rejects.toThrow(/not a PEM certificate/);
  });

  it('refuses a CA key others can read, and says what to do with a key left without its certificate', async () => {
    const dir = freshDir();
    await loadOrCreateLocalCa(dir);
    chmodSync(join(dir, 'ca-key.pem'), 0o644);
    await expect(loadOrCreateLocalCa(dir)).rejects.toThrow(/readable by others than its owner \(chmod 600 it\)/);
    const orphan = freshDir();
    writeFileSync(join(orphan, 'ca-key.pem'), (await createLocalCa()).keyPem, { mode: 0o600 });
    await expect(loadOrCreateLocalCa(orphan)).rejects.toThrow(/incomplete .*delete .*ca-key\.pem/);
  });

  it('signs loopback certificates that a client trusting the CA accepts, and one trusting another CA refuses', async () => {
    const ca = await createLocalCa();
    const server = await issueServerCertificate(ca);
    const leaf = new X509Certificate(server.cert);
    expect(leaf.ca).toBe(false);
    expect(leaf.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    expect(await handshake(server, ca.certPem, 'localhost')).toBe('trusted');
    expect(await handshake(server, (await createLocalCa()).certPem, 'localhost')).not.toBe('trusted');
    expect(await handshake(server, ca.certPem, 'example.com')).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
  });

  it('can vouch for loopback names only: a certificate it signs for another host is refused (name constraints)', async () => {
    const ca = await createLocalCa();
    const now = Date.now();
    const elsewhere = await generate([{ name: 'commonName', value: 'example.com' }], {
      keyType: 'ec', algorithm: 'sha256', notBeforeDate: new Date(now - 86_400_000), notAfterDate: new Date(now + 86_400_000),
      ca: { cert: ca.certPem, key: ca.keyPem },
      extensions: [{ name: 'basicConstraints', cA: false, critical: true }, { name: 'extKeyUsage', serverAuth: true }, { name: 'subjectAltName', altNames: [{ type: 2, value: 'example.com' }] }],
    });
    // OpenSSL's "permitted subtree violation" (47), which Node reports without a code of its own.
    expect(await handshake({ cert: elsewhere.cert, key: elsewhere.private }, ca.certPem, 'example.com')).toMatch(/^(UNSPECIFIED|PERMITTED_SUBTREE_VIOLATION)$/);
  });

  it('replaces a CA of an earlier version (ten years, no name constraints) under the same file name', async () => {
    const dir = freshDir();
    const now = Date.now();
    const old = await generate([{ name: 'commonName', value: 'old local CA' }], {
      keyType: 'ec', algorithm: 'sha256', notBeforeDate: new Date(now - 86_400_000), notAfterDate: new Date(now + 3650 * 86_400_000),
      extensions: [{ name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true }, { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true }],
    });
    writeFileSync(join(dir, 'ca-key.pem'), old.private, { mode: 0o600 });
    writeFileSync(join(dir, CA_CERT_FILE), old.cert);
    const replaced = await loadOrCreateLocalCa(dir);
    expect(replaced.certPem).not.toBe(old.cert);
    expect(readFileSync(join(dir, CA_CERT_FILE), 'utf8')).toBe(replaced.certPem);
    expect(Date.parse(new X509Certificate(replaced.certPem).validTo) - now).toBeLessThan(91 * 86_400_000);
  });
});
