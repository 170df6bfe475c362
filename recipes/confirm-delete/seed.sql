-- The notes the recipe starts with; mcp-run runs this once, when notes.db does not exist yet.
CREATE TABLE notes (
  id INTEGER PRIMARY KEY,
  title TEXT NOT NULL,
  body TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL DEFAULT (datetime('now')),
  archived_reason TEXT
);

INSERT INTO notes (title, body, created_at) VALUES
  ('Groceries', 'Milk, eggs, bread, coffee.', '2026-01-05 09:00:00'),
  ('Call the plumber', 'The kitchen tap drips again; ask for Tuesday morning.', '2026-01-06 18:30:00'),
  ('Book ideas', 'A lighthouse keeper who collects lost letters.', '2026-01-08 22:15:00'),
  ('Old wifi password', 'Replaced in December; safe to forget.', '2025-11-30 12:00:00');
