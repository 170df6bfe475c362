-- The team recipe's customer list: names, emails, plans and card numbers that only an admin sees whole.
CREATE TABLE customers (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  email TEXT NOT NULL,
  plan TEXT NOT NULL CHECK (plan IN ('free', 'pro')),
  note TEXT NOT NULL DEFAULT ''
);
INSERT INTO customers (id, name, email, plan, note) VALUES
  (1, 'Ada Lovelace', 'ada@example.com', 'pro', 'Pays by card 4111 1111 1111 1111'),
  (2, 'Alan Turing', 'alan@example.com', 'free', 'Asked for a call on +44 20 7946 0958'),
  (3, 'Grace Hopper', 'grace@example.com', 'pro', 'Invoice to IBAN GB82 WEST 1234 5698 7654 32'),
  (4, 'Edsger Dijkstra', 'edsger@example.com', 'free', '');
