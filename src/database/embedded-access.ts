import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type pg from 'pg';
import { type EmbeddedCredentials, scramVerifier, verifierAccepts } from './embedded-credentials.js';

/**
 * Who may connect to the embedded cluster: anyone who proves a password with SCRAM, and nobody without
 * one. Clusters made by older versions say `password` (sent in clear) here; initdb's own comments go.
 */
const CLIENT_AUTHENTICATION = `# Written by the game backend at each start of its embedded PostgreSQL; changes here are replaced.
local   all          all                   scram-sha-256
host    all          all   127.0.0.1/32    scram-sha-256
host    all          all   ::1/128         scram-sha-256
local   replication  all                   scram-sha-256
host    replication  all   127.0.0.1/32    scram-sha-256
host    replication  all   ::1/128         scram-sha-256
`;

/** Puts CLIENT_AUTHENTICATION in the cluster's pg_hba.conf, before the server starts and reads it. */
export async function requirePasswords(directory: string): Promise<void> {
  const file = join(directory, 'pg_hba.conf');
  // Rewritten in place, so that the file keeps the owner and mode initdb gave it.
  if ((await readFile(file, 'utf8')) !== CLIENT_AUTHENTICATION) await writeFile(file, CLIENT_AUTHENTICATION);
}

interface RoleRow {
  rolname: string;
  rolpassword: string | null;
  privileged: boolean;
}

/**
 * Gives the superuser and the service's role the passwords of `credentials`, creating the role if it
 * is missing and taking from it any right beyond logging in. Only what differs is changed, so that a
 * second start changes nothing; the passwords reach the server as SCRAM verifiers only.
 */
export async function secureRoles(admin: pg.Client, credentials: EmbeddedCredentials): Promise<void> {
  const { superuser, service } = credentials;
  const { rows } = await admin.query<RoleRow>(
    `SELECT rolname, rolpassword,
            rolsuper OR rolcreaterole OR rolcreatedb OR rolreplication OR rolbypassrls OR NOT rolcanlogin AS privileged
       FROM pg_authid WHERE rolname = ANY($1)`,
    [[superuser.user, service.user]],
  );
  const found = new Map(rows.map((row) => [row.rolname, row]));
  const password = (password: string) => admin.escapeLiteral(scramVerifier(password));

  const current = found.get(superuser.user);
  if (current && !verifierAccepts(current.rolpassword, superuser.password)) {
    await admin.query(`ALTER ROLE ${admin.escapeIdentifier(superuser.user)} PASSWORD ${password(superuser.password)}`);
  }

  const role = admin.escapeIdentifier(service.user);
  const limits = 'LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS';
  const existing = found.get(service.user);
  if (!existing) {
    await admin.query(`CREATE ROLE ${role} ${limits} PASSWORD ${password(service.password)}`);
    return;
  }
  if (existing.privileged) await admin.query(`ALTER ROLE ${role} ${limits}`);
  if (!verifierAccepts(existing.rolpassword, service.password)) {
    await admin.query(`ALTER ROLE ${role} PASSWORD ${password(service.password)}`);
  }
}

/**
 * Makes `database` exist and belong to `role`, with every object of its own schemas: a database
 * made by an older version belongs to the superuser, and so does what its migrations created.
 * `connect` opens a superuser's connection to a database of the cluster.
 */
export async function handOverDatabase(
  admin: pg.Client,
  connect: (database: string) => Promise<pg.Client>,
  database: string,
  role: string,
): Promise<void> {
  const { rows } = await admin.query<{ owner: string }>('SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = $1', [
    database,
  ]);
  const name = admin.escapeIdentifier(database);
  const owner = admin.escapeIdentifier(role);
  if (rows.length === 0) {
    await admin.query(`CREATE DATABASE ${name} OWNER ${owner}`);
    return;
  }
  if (rows[0].owner !== role) await admin.query(`ALTER DATABASE ${name} OWNER TO ${owner}`);

  const client = await connect(database);
  try {
    const statements = (await client.query<{ statement: string }>(OWNERSHIP_CHANGES, [role])).rows.map((row) => row.statement);
    if (statements.length === 0) return;
    await client.query('BEGIN');
    for (const statement of statements) await client.query(statement);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

/**
 * The ALTER … OWNER TO $1 statements that give $1 the schemas outside PostgreSQL's own and what is in
 * them: tables, views, sequences, routines and types. Left out: what belongs to an extension (its
 * owner keeps it), and what moves with something else: indexes, triggers and rules with their table,
 * a serial or identity sequence with its table, an array type with its element type.
 */
const OWNERSHIP_CHANGES = `
  WITH schemas AS (
    SELECT oid, nspname, nspowner FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema'
  ),
  extension_members AS (
    SELECT classid, objid FROM pg_depend WHERE deptype = 'e'
  )
  SELECT format('ALTER SCHEMA %I OWNER TO %I', nspname, $1::text) AS statement, 1 AS step
    FROM schemas
   WHERE pg_get_userbyid(nspowner) NOT IN ($1::text, 'pg_database_owner')
  UNION ALL
  SELECT format('ALTER %s %s OWNER TO %I',
                CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE'
                               WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END,
                c.oid::regclass, $1::text),
         CASE c.relkind WHEN 'S' THEN 3 ELSE 2 END
    FROM pg_class c JOIN schemas s ON s.oid = c.relnamespace
   WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S') AND pg_get_userbyid(c.relowner) <> $1::text
     AND (c.tableoid, c.oid) NOT IN (SELECT classid, objid FROM extension_members)
     AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                        AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i') AND c.relkind = 'S')
  UNION ALL
  SELECT format('ALTER ROUTINE %s OWNER TO %I', p.oid::regprocedure, $1::text), 4
    FROM pg_proc p JOIN schemas s ON s.oid = p.pronamespace
   WHERE pg_get_userbyid(p.proowner) <> $1::text AND (p.tableoid, p.oid) NOT IN (SELECT classid, objid FROM extension_members)
  UNION ALL
  SELECT format('ALTER %s %s OWNER TO %I', CASE t.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END, t.oid::regtype, $1::text), 4
    FROM pg_type t JOIN schemas s ON s.oid = t.typnamespace
   WHERE pg_get_userbyid(t.typowner) <> $1::text AND (t.tableoid, t.oid) NOT IN (SELECT classid, objid FROM extension_members)
     AND (t.typtype IN ('e', 'd', 'r') OR (t.typtype = 'c' AND (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c'))
  ORDER BY step`;
