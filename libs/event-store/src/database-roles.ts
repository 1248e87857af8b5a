import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { quoteIdent } from './quote-ident';

/**
 * PostgreSQL roles per service (docs/adr/0015): a migration role owns every schema and table, each
 * service logs in as its own role with rights on its schema only, and on its `events` no more than
 * SELECT and INSERT. The owner of a table can always change it, so the service is never its owner.
 */
export interface LoginRole {
  role: string;
  /** Set (as a SCRAM verifier computed here) when given; none is fine with trust auth. */
  password?: string;
}

export interface RolePlan {
  migrator: LoginRole;
  /** One per service: its schema and the role it connects as. */
  services: Array<LoginRole & { schema: string }>;
}

/** Role names come from configuration; still, quote them as identifiers. */
export function quoteRole(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`invalid PostgreSQL role name: ${name} (lowercase letters, digits and _)`);
  return `"${name}"`;
}

/**
 * Run once per database by an administrator (a superuser, or a role with CREATEROLE owning the
 * database): creates the missing login roles, sets the given passwords, lets the migration role
 * create schemas, and hands it the service schemas that an earlier, role-less install created as
 * another user (otherwise it could not migrate them). Idempotent. Returns what it did, for the log.
 */
export async function provisionDatabaseRoles(admin: Pool, plan: RolePlan): Promise<string[]> {
  const done: string[] = [];
  const client = await admin.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', ['headspace-roles']);
    const { rows } = await client.query<{ me: string; db: string }>('SELECT current_user AS me, current_database() AS db');
    const { me, db } = rows[0];
    for (const login of [plan.migrator, ...plan.services]) {
      if (login.role === me) continue; // the administrator itself (an explicit DATABASE_URL_<SERVICE>)
      const role = quoteRole(login.role);
      const exists = (await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [login.role])).rowCount === 1;
      const password = login.password === undefined ? '' : ` PASSWORD '${scramVerifier(login.password)}'`;
      if (!exists) {
        await client.query(`CREATE ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION${password}`);
        done.push(`created role ${login.role}`);
      } else if (password) {
        await client.query(`ALTER ROLE ${role}${password}`);
      }
    }
    const migrator = quoteRole(plan.migrator.role);
    await client.query(`GRANT CONNECT, CREATE ON DATABASE "${db.replace(/"/g, '""')}" TO ${migrator}`);
    // The administrator may then migrate as the migration role (SET ROLE) without its password.
    if (plan.migrator.role !== me && !(await client.query('SELECT 1 FROM pg_roles WHERE rolname = current_user AND rolsuper')).rowCount) {
      await client.query(`GRANT ${migrator} TO CURRENT_USER`);
    }
    for (const { schema } of plan.services) done.push(...(await adoptSchema(client, schema, plan.migrator.role)));
  } catch (error) {
    throw new Error(
      `cannot provision the database roles: ${(error as Error).message} ` +
        '(DATABASE_URL must name a superuser or a CREATEROLE owner of the database; or create the roles yourself, see docs/adr/0015, or set HS_DB_ROLES=false)',
      { cause: error },
    );
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', ['headspace-roles']).catch(() => undefined);
    client.release();
  }
  return done;
}

/**
 * Whether every service role exists and may use its schema: what `npm start` checks before it
 * starts the services as their roles (a DATABASE_URL that could not create roles migrates without).
 */
export async function serviceRolesReady(pool: Pool, services: Array<{ schema: string; role: string }>): Promise<boolean> {
  const { rows } = await pool.query<{ ready: boolean }>(
    `SELECT bool_and(r.rolname IS NOT NULL AND n.oid IS NOT NULL AND has_schema_privilege(r.rolname, n.oid, 'USAGE')) AS ready
       FROM unnest($1::text[], $2::text[]) AS s(schema, role)
       LEFT JOIN pg_roles r ON r.rolname = s.role
       LEFT JOIN pg_namespace n ON n.nspname = s.schema`,
    [services.map((s) => s.schema), services.map((s) => s.role)],
  );
  return rows[0]?.ready === true;
}

/** Gives the migration role a service schema, and everything in it, that another role owns. */
async function adoptSchema(client: PoolClient, schema: string, owner: string): Promise<string[]> {
  const { rows } = await client.query<{ kind: string; name: string }>(
    `SELECT 'SCHEMA' AS kind, quote_ident(n.nspname) AS name FROM pg_namespace n
      WHERE n.nspname = $1 AND pg_get_userbyid(n.nspowner) <> $2
     UNION ALL
     -- Tables, views, sequences not owned by a column (identity sequences follow their table).
     SELECT CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE 'TABLE' END,
            quote_ident(n.nspname) || '.' || quote_ident(c.relname)
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'S') AND pg_get_userbyid(c.relowner) <> $2
        AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i'))
     UNION ALL
     SELECT CASE p.prokind WHEN 'p' THEN 'PROCEDURE' ELSE 'FUNCTION' END, p.oid::regprocedure::text
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = $1 AND pg_get_userbyid(p.proowner) <> $2`,
    [schema, owner],
  );
  for (const { kind, name } of rows) await client.query(`ALTER ${kind} ${name} OWNER TO ${quoteRole(owner)}`);
  return rows.length ? [`schema ${schema}: ${rows.length} object(s) now owned by ${owner}`] : [];
}

/**
 * Run by the migration role (the owner) after migrating a service schema, in the same lock: the
 * service role may use the schema and write its read models, checkpoints, inbox and dead letters;
 * on `events` it may only read and append; on `streams` (the version compare-and-set) it may not
 * delete; `schema_migrations` it may only read (to see it is up to date). Re-applied on every run,
 * in one transaction, so tables added by later migrations are covered.
 */
export async function grantServiceRole(client: PoolClient, schema: string, role: string): Promise<void> {
  const s = quoteIdent(schema);
  const r = quoteRole(role);
  // From nothing each time, so a hand-made grant is taken back too.
  await client.query(`REVOKE ALL ON SCHEMA ${s} FROM ${r}`);
  await client.query(`REVOKE ALL ON ALL TABLES IN SCHEMA ${s} FROM ${r}`);
  await client.query(`REVOKE ALL ON ALL SEQUENCES IN SCHEMA ${s} FROM ${r}`);
  await client.query(`GRANT USAGE ON SCHEMA ${s} TO ${r}`);
  await client.query(`GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON ALL TABLES IN SCHEMA ${s} TO ${r}`);
  await client.query(`GRANT USAGE ON ALL SEQUENCES IN SCHEMA ${s} TO ${r}`); // serial columns' nextval
  await client.query(`REVOKE UPDATE, DELETE, TRUNCATE ON ${s}.events FROM ${r}`);
  await client.query(`REVOKE DELETE, TRUNCATE ON ${s}.streams FROM ${r}`);
  await client.query(`REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON ${s}.schema_migrations FROM ${r}`);
}

const SCRAM_ITERATIONS = 4096;

/**
 * A SCRAM-SHA-256 verifier as PostgreSQL stores it, so the password itself never reaches the
 * server (nor its statement log). Computed from the password's bytes as node-postgres sends them
 * (no SASLprep: an ASCII password is the same either way).
 */
export function scramVerifier(password: string, salt = randomBytes(16), iterations = SCRAM_ITERATIONS): string {
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}
