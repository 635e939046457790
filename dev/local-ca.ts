/**
 * The local certificate authority of the dev stack: real OAuth clients (MSAL, `@azure/identity`)
 * insist on an https authority, so the local identity provider serves TLS with a certificate this
 * CA signs. `npm start` creates the CA once under `.local/` (git-ignored); callers trust
 * `.local/ca.pem` as the README says (SUMMARY_CA_FILE, NODE_EXTRA_CA_CERTS for one command,
 * REQUESTS_CA_BUNDLE, curl --cacert). It may vouch for loopback names only, for 90 days.
 */
import { X509Certificate, createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { AsnConvert } from '@peculiar/asn1-schema';
import { GeneralName, GeneralSubtree, GeneralSubtrees, id_ce_nameConstraints, NameConstraints } from '@peculiar/asn1-x509';
import * as x509 from '@peculiar/x509';
import { generate } from 'selfsigned';
import { projectRoot } from './project-root.js';

/** A CA: its certificate (what callers trust) and its private key (what signs server certificates). */
export interface LocalCa {
  readonly certPem: string;
  readonly keyPem: string;
}

/** A server certificate and its key, as `https.createServer` takes them. */
export interface ServerCertificate {
  readonly cert: string;
  readonly key: string;
}

/** File names inside the CA folder: the certificate callers trust and the key that stays here. */
export const CA_CERT_FILE = 'ca.pem';
const CA_KEY_FILE = 'ca-key.pem';

const DAY_MS = 86_400_000;
/** The names a local server answers on, and so the names its certificate covers. */
const LOOPBACK_NAMES = [
  { type: 2 as const, value: 'localhost' },
  { type: 7 as const, ip: '127.0.0.1' },
  { type: 7 as const, ip: '::1' },
];

/** How long a local CA is valid; it is replaced by a new one 30 days before it ends. */
const CA_LIFETIME_DAYS = 90;

/**
 * The CA's name constraints: it may vouch for the loopback names its servers answer on and
 * nothing else, so its key, were it taken, could not make a certificate for any other host.
 */
const PERMITTED = [new GeneralName({ dNSName: 'localhost' }), new GeneralName({ iPAddress: '127.0.0.1/32' }), new GeneralName({ iPAddress: '::1/128' })];

/**
 * A new CA in memory: EC P-256, SHA-256, 90 days, allowed to sign server certificates for the
 * loopback names only (a critical name constraints extension, which TLS clients enforce).
 * Written with @peculiar/x509 (already in the tree through selfsigned, which cannot write that
 * extension).
 */
export async function createLocalCa(): Promise<LocalCa> {
  const now = Date.now();
  // A name of its own: TLS finds a certificate's issuer by name, so two local CAs trusted in one
  // process (the stack's and a test's throwaway one) must not share one.
  const name = `summary-data-service local development CA ${randomBytes(4).toString('hex')}`;
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[1]);
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']) as webcrypto.CryptoKeyPair;
  const constraints = new NameConstraints({ permittedSubtrees: new GeneralSubtrees(PERMITTED.map((base) => new GeneralSubtree({ base }))) });
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: `01${randomBytes(15).toString('hex')}`,
    name: `CN=${name}`,
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + CA_LIFETIME_DAYS * DAY_MS),
    signingAlgorithm: algorithm,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      new x509.Extension(id_ce_nameConstraints, true, AsnConvert.serialize(constraints)),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const keyPem = x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
  return { certPem: cert.toString('pem'), keyPem };
}

/** Whether a CA certificate carries the name constraints a CA of this project is made with. */
function isConstrained(certPem: string): boolean {
  return new x509.X509Certificate(certPem).getExtension(id_ce_nameConstraints)?.critical === true;
}

/**
 * The CA kept in `dir` (created on first use, key readable by the owner only). Two processes
 * starting at once agree: the first to write wins and the other reads what it wrote.
 */
export async function loadOrCreateLocalCa(dir: string = join(projectRoot(), '.local')): Promise<LocalCa & { readonly certFile: string }> {
  const certFile = join(dir, CA_CERT_FILE);
  const keyFile = join(dir, CA_KEY_FILE);
  const existing = readCa(certFile, keyFile);
  if (existing === 'replace') {
    // Made by an earlier version (no name constraints) or about to end: a new one takes its
    // place, under the same file name (SUMMARY_CA_FILE and the README's commands stay as they are).
    rmSync(keyFile, { force: true });
    rmSync(certFile, { force: true });
  } else if (existing) {
    return { ...existing, certFile };
  }
  mkdirSync(dir, { recursive: true });
  const fresh = await createLocalCa();
  try {
    writeFileSync(keyFile, fresh.keyPem, { flag: 'wx', mode: 0o600 });
    writeFileSync(certFile, fresh.certPem, { flag: 'wx' });
    return { ...fresh, certFile };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const written = readCa(certFile, keyFile);
    if (!written || written === 'replace') {
      throw new Error(`the local CA in ${dir} is incomplete (${keyFile} without ${certFile}: another start writing it now, or one stopped while writing it): start again, and if this repeats delete ${keyFile}`);
    }
    return { ...written, certFile };
  }
}

/** The CA in the files; undefined when there is none; 'replace' when it is unconstrained or ending. */
function readCa(certFile: string, keyFile: string): LocalCa | 'replace' | undefined {
  let certPem: string;
  let keyPem: string;
  try {
    certPem = readFileSync(certFile, 'utf8');
    keyPem = readFileSync(keyFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const broken = (why: string) => new Error(`the local CA in ${certFile} is unusable (${why}): delete ${certFile} and ${keyFile} to create a new one, then trust the new ca.pem`);
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
    if (!cert.checkPrivateKey(createPrivateKey(keyPem))) throw broken('the key does not match the certificate');
  } catch (error) {
    throw error instanceof Error && error.message.startsWith('the local CA') ? error : broken('not a PEM certificate and key');
  }
  if (!cert.ca) throw broken('not a CA certificate');
  // The key signs certificates this machine's clients trust: readable by its owner only.
  if (process.platform !== 'win32' && (statSync(keyFile).mode & 0o077) !== 0) throw broken(`${keyFile} is readable by others than its owner (chmod 600 it)`);
  if (Date.parse(cert.validTo) < Date.now() + 30 * DAY_MS || !isConstrained(certPem)) return 'replace';
  return { certPem, keyPem };
}

/** A certificate for loopback (localhost, 127.0.0.1, ::1) signed by `ca`, valid for 30 days. */
export async function issueServerCertificate(ca: LocalCa): Promise<ServerCertificate> {
  const now = Date.now();
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - DAY_MS),
    notAfterDate: new Date(now + 30 * DAY_MS),
    ca: { cert: ca.certPem, key: ca.keyPem },
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: LOOPBACK_NAMES },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

/**
 * Adds `ca` to the certificates this process trusts by default (fetch, https, MSAL's client), as
 * NODE_EXTRA_CA_CERTS does for a process at start. The local stack trusts its own CA this way so
 * the service can fetch the identity provider's keys; repeating it adds nothing.
 */
export function trustInThisProcess(ca: Pick<LocalCa, 'certPem'>): void {
  const current = getCACertificates('default');
  const pem = ca.certPem.trim();
  if (current.some((existing) => existing.trim() === pem)) return;
  setDefaultCACertificates([...current, pem]);
}

/** A throwaway CA this process trusts and a loopback certificate from it: for tests and benchmarks. */
export async function throwawayServerCertificate(): Promise<ServerCertificate> {
  const ca = await createLocalCa();
  trustInThisProcess(ca);
  return issueServerCertificate(ca);
}
