// What another user of the machine can try against the embedded PostgreSQL: read files and sign in.
// test/embedded-postgres.e2e-spec.ts runs it as that user, copied into a folder of its own, so it
// imports nothing but Node's own modules.
//
// Argument: JSON { port, files: [path to read], folders: [path to list], logins: [{ user, password? }] }.
// Prints JSON: { uid, files, folders (each 'allowed' or the error code), logins (each 'connected', the
// SQLSTATE of the refusal, or what the server asked for when the probe has no password to give) }.
import { Buffer } from 'node:buffer';
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';

const request = JSON.parse(process.argv[2]);

function attempt(action) {
  try {
    action();
    return 'allowed';
  } catch (error) {
    return error.code;
  }
}

const hmac = (key, text) => createHmac('sha256', key).update(text).digest();

/** Signs in over the wire protocol (version 3.0), answering SCRAM-SHA-256 as libpq does (RFC 5802). */
function login(port, user, password) {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let received = Buffer.alloc(0);
    let clientFirstBare = '';
    const finish = (result) => {
      socket.destroy();
      resolve(result);
    };
    const send = (type, body) => {
      const header = Buffer.alloc(5);
      header.write(type);
      header.writeInt32BE(body.length + 4, 1);
      socket.write(Buffer.concat([header, body]));
    };
    socket.setTimeout(10_000, () => finish('timeout'));
    socket.on('error', (error) => finish(error.code));
    socket.on('connect', () => {
      const parameters = Buffer.from(`user\0${user}\0database\0postgres\0\0`);
      const header = Buffer.alloc(8);
      header.writeInt32BE(parameters.length + 8);
      header.writeInt32BE(3 << 16, 4);
      socket.write(Buffer.concat([header, parameters]));
    });
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      while (received.length >= 5 && received.length >= 1 + received.readInt32BE(1)) {
        const type = String.fromCharCode(received[0]);
        const body = received.subarray(5, 1 + received.readInt32BE(1));
        received = received.subarray(1 + received.readInt32BE(1));
        if (type === 'E') {
          const field = body
            .toString()
            .split('\0')
            .find((part) => part.startsWith('C'));
          return finish(field ? field.slice(1) : 'error');
        }
        if (type !== 'R') continue;
        const code = body.readInt32BE(0);
        if (code === 0) return finish('connected');
        if (code === 10) {
          const mechanisms = body.subarray(4).toString().split('\0').filter(Boolean).join(' ');
          if (password === undefined) return finish(`password required (${mechanisms})`);
          clientFirstBare = `n=,r=${randomBytes(18).toString('base64')}`;
          const first = Buffer.from(`n,,${clientFirstBare}`);
          const length = Buffer.alloc(4);
          length.writeInt32BE(first.length);
          send('p', Buffer.concat([Buffer.from('SCRAM-SHA-256\0'), length, first]));
        } else if (code === 11) {
          const serverFirst = body.subarray(4).toString();
          const fields = Object.fromEntries(serverFirst.split(',').map((field) => [field[0], field.slice(2)]));
          const salted = pbkdf2Sync(password, Buffer.from(fields.s, 'base64'), Number(fields.i), 32, 'sha256');
          const clientKey = hmac(salted, 'Client Key');
          const finalWithoutProof = `c=biws,r=${fields.r}`;
          const signature = hmac(createHash('sha256').update(clientKey).digest(), `${clientFirstBare},${serverFirst},${finalWithoutProof}`);
          const proof = Buffer.from(clientKey.map((byte, index) => byte ^ signature[index]));
          send('p', Buffer.from(`${finalWithoutProof},p=${proof.toString('base64')}`));
        } else if (code !== 12) {
          // Anything but SCRAM: a password sent in clear (3) or as MD5 (5).
          return finish(`authentication method ${code}`);
        }
      }
    });
  });
}

const result = {
  uid: process.getuid(),
  files: Object.fromEntries(request.files.map((path) => [path, attempt(() => readFileSync(path))])),
  folders: Object.fromEntries(request.folders.map((path) => [path, attempt(() => readdirSync(path))])),
  logins: [],
};
for (const { user, password } of request.logins) result.logins.push(await login(request.port, user, password));
console.log(JSON.stringify(result));
