-- The notes of two users of the recipe's local issuer (alice and bob).
CREATE TABLE notes (
  id INTEGER PRIMARY KEY,
  owner TEXT NOT NULL,
  created TEXT NOT NULL,
  text TEXT NOT NULL
);
CREATE INDEX notes_owner ON notes (owner);
INSERT INTO notes (owner, created, text) VALUES
  ('alice@example.test', '2026-01-02', 'Buy milk'),
  ('alice@example.test', '2026-01-05', 'Call the plumber about the sink'),
  ('bob@example.test', '2026-01-03', 'Bob''s secret plan'),
  ('alice@example.test', '2026-01-09', 'Book the train to Turku');
