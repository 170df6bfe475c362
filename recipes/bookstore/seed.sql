-- The bookstore: created on first run by the sqlite source's `seed:` when bookstore.db does not exist.
CREATE TABLE authors (
  id       INTEGER PRIMARY KEY,
  name     TEXT NOT NULL UNIQUE,
  country  TEXT
);

CREATE TABLE books (
  isbn       TEXT PRIMARY KEY,
  title      TEXT NOT NULL,
  author_id  INTEGER NOT NULL REFERENCES authors(id),
  genre      TEXT NOT NULL CHECK (genre IN ('fiction', 'science', 'history', 'children')),
  year       INTEGER,
  price      REAL NOT NULL,
  stock      INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX books_by_author ON books (author_id);
CREATE INDEX books_by_genre ON books (genre, title);

CREATE TABLE sales (
  id       INTEGER PRIMARY KEY,
  isbn     TEXT NOT NULL REFERENCES books(isbn),
  sold_on  TEXT NOT NULL,
  copies   INTEGER NOT NULL CHECK (copies > 0)
);
CREATE INDEX sales_by_book ON sales (isbn, sold_on);

CREATE VIEW stock_value AS
  SELECT genre, SUM(stock) AS copies, ROUND(SUM(stock * price), 2) AS value
  FROM books GROUP BY genre;

INSERT INTO authors (id, name, country) VALUES
  (1, 'Ursula K. Le Guin', 'US'),
  (2, 'Carl Sagan', 'US'),
  (3, 'Mary Beard', 'GB'),
  (4, 'Tove Jansson', 'FI'),
  (5, 'Chimamanda Ngozi Adichie', 'NG'),
  (6, 'Stephen Hawking', 'GB');

INSERT INTO books (isbn, title, author_id, genre, year, price, stock) VALUES
  ('978-0-441-47812-5', 'The Left Hand of Darkness', 1, 'fiction', 1969, 9.99, 12),
  ('978-0-547-77374-3', 'A Wizard of Earthsea', 1, 'fiction', 1968, 8.99, 4),
  ('978-0-06-105488-8', 'The Dispossessed', 1, 'fiction', 1974, 10.99, 0),
  ('978-0-345-53943-4', 'Cosmos', 2, 'science', 1980, 18.00, 7),
  ('978-0-345-37659-6', 'Pale Blue Dot', 2, 'science', 1994, 17.00, 3),
  ('978-1-63149-125-1', 'SPQR', 3, 'history', 2015, 19.95, 9),
  ('978-1-63149-416-0', 'Women & Power', 3, 'history', 2017, 12.95, 5),
  ('978-0-374-35028-7', 'Finn Family Moomintroll', 4, 'children', 1948, 7.99, 15),
  ('978-0-374-35031-7', 'Comet in Moominland', 4, 'children', 1946, 7.99, 8),
  ('978-0-00-720028-3', 'Half of a Yellow Sun', 5, 'fiction', 2006, 11.99, 6),
  ('978-0-307-45592-5', 'Americanah', 5, 'fiction', 2013, 12.99, 10),
  ('978-0-553-38016-3', 'A Brief History of Time', 6, 'science', 1988, 15.99, 11);

INSERT INTO sales (isbn, sold_on, copies) VALUES
  ('978-0-441-47812-5', '2025-10-01', 2),
  ('978-0-441-47812-5', '2025-10-08', 1),
  ('978-0-345-53943-4', '2025-10-02', 3),
  ('978-1-63149-125-1', '2025-10-03', 4),
  ('978-0-374-35028-7', '2025-10-04', 5),
  ('978-0-374-35028-7', '2025-10-11', 2),
  ('978-0-307-45592-5', '2025-10-05', 2),
  ('978-0-553-38016-3', '2025-10-06', 1),
  ('978-0-547-77374-3', '2025-10-07', 1),
  ('978-1-63149-416-0', '2025-10-09', 2);
