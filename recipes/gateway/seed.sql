-- The incidents of the gateway recipe: what the on-call team looks up next to the runbooks in files/.
CREATE TABLE incidents (
  id INTEGER PRIMARY KEY,
  opened TEXT NOT NULL,
  service TEXT NOT NULL,
  severity TEXT NOT NULL CHECK (severity IN ('low', 'high', 'critical')),
  summary TEXT NOT NULL,
  runbook TEXT -- a file under files/, read with read_runbook
);
INSERT INTO incidents (opened, service, severity, summary, runbook) VALUES
  ('2026-03-02', 'billing', 'high', 'Primary database stopped accepting writes', 'runbooks/db-failover.md'),
  ('2026-03-09', 'search', 'low', 'Index rebuild ran past its window', NULL),
  ('2026-03-14', 'billing', 'critical', 'Invoices sent twice after a retry storm', 'runbooks/db-failover.md'),
  ('2026-03-20', 'web', 'low', 'Stale assets after a deploy', 'runbooks/deploy-rollback.md');
