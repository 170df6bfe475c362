-- An account that can only read, for DATABASE_URL (run it as an account with CREATE USER).
-- Replace app (the database) and the password; then connect as
-- mysql://mcp_reader:choose-a-password@host:3306/app
-- mcp-run refuses to serve the query tool on an account with FILE, SUPER, PROCESS, SHUTDOWN,
-- RELOAD, CREATE USER, ALL PRIVILEGES or GRANT OPTION: see docs/security.md.
CREATE USER 'mcp_reader'@'%' IDENTIFIED BY 'choose-a-password';
GRANT SELECT, SHOW VIEW ON app.* TO 'mcp_reader'@'%';
