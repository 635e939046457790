import { X509Certificate } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { describe, expect, it } from '@jest/globals';
import { CA_CERT_FILE, createLocalCa, issueServerCertificate, loadOrCreateLocalCa } from '../../../dev/local-ca.js';
import { tempDirs } from '../../support/temp-dirs.js';

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
    expect(Date.parse(cert.validTo) - Date.now()).toBeGreaterThan(3000 * 86_400_000);
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
});
