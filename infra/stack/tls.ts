import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './processes.ts';

/** PEM files for a local cluster that speaks TLS: an authority, the brokers' and a client's. */
export interface TlsMaterial {
  /** The authority's certificate: what clients and brokers trust. */
  ca: string;
  /** The brokers' private key and certificate chain in one file (Kafka's PEM key store). */
  brokerKeyStore: string;
  /** A client certificate and its key, for clusters that ask clients for one (mutual TLS). */
  clientCertificate: string;
  clientKey: string;
}

/**
 * Made once with openssl (Debian's, on every machine) and reused: a throwaway authority that signs
 * a broker certificate for 127.0.0.1 and localhost, and a client certificate. For the local
 * stack and its tests only; a managed cluster brings its own.
 */
export function ensureTlsMaterial(dir: string): TlsMaterial {
  const file = (name: string) => join(dir, name);
  const material: TlsMaterial = {
    ca: file('ca.pem'),
    brokerKeyStore: file('broker-keystore.pem'),
    clientCertificate: file('client.pem'),
    clientKey: file('client.key'),
  };
  if (Object.values(material).every((path) => existsSync(path))) return material;
  mkdirSync(dir, { recursive: true });
  const openssl = (...args: string[]) => run('openssl', args);
  const days = ['-days', '3650'];
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    file('ca.key'),
    '-out',
    material.ca,
    '-subj',
    '/CN=Orrery local CA',
    ...days,
  );
  const signed = (name: string, subject: string, extensions: string) => {
    writeFileSync(file(`${name}.ext`), extensions);
    openssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      file(`${name}.key`),
      '-out',
      file(`${name}.csr`),
      '-subj',
      subject,
    );
    openssl(
      'x509',
      '-req',
      '-in',
      file(`${name}.csr`),
      '-CA',
      material.ca,
      '-CAkey',
      file('ca.key'),
      '-CAcreateserial',
      '-out',
      file(`${name}.pem`),
      '-extfile',
      file(`${name}.ext`),
      ...days,
    );
  };
  signed(
    'broker',
    '/CN=localhost',
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n',
  );
  signed('client', '/CN=orrery', 'extendedKeyUsage=clientAuth\n');
  // Kafka's PEM key store: an unencrypted PKCS#8 key, then the certificate chain.
  const key = run('openssl', ['pkcs8', '-topk8', '-nocrypt', '-in', file('broker.key')]);
  const chain = run('cat', [file('broker.pem'), material.ca]);
  writeFileSync(material.brokerKeyStore, `${key}${chain}`);
  return material;
}
