-- A role that can only read, for DATABASE_URL (run it as the database owner or a superuser).
-- Replace app (the database), public (each schema to show) and the password; then connect as
-- postgres://mcp_reader:choose-a-password@host:5432/app
-- mcp-run refuses to serve the query tool on a role that can escape read-only (a superuser, a
-- member of pg_read_server_files, pg_write_server_files, pg_execute_server_program or
-- pg_signal_backend, CREATEROLE, REPLICATION): see docs/security.md.
CREATE ROLE mcp_reader LOGIN PASSWORD 'choose-a-password'
  NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;
GRANT CONNECT ON DATABASE app TO mcp_reader;
GRANT USAGE ON SCHEMA public TO mcp_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO mcp_reader;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO mcp_reader;
