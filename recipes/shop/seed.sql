-- The demo shop: created on first run by the sqlite source's `seed:` when shop.db does not exist.
CREATE TABLE customers (
  id         INTEGER PRIMARY KEY,
  email      TEXT NOT NULL UNIQUE,
  name       TEXT NOT NULL,
  city       TEXT,
  joined_at  TEXT NOT NULL
);

CREATE TABLE products (
  id        INTEGER PRIMARY KEY,
  sku       TEXT NOT NULL UNIQUE,
  name      TEXT NOT NULL,
  category  TEXT NOT NULL,
  price     REAL NOT NULL,
  stock     INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE orders (
  id           INTEGER PRIMARY KEY,
  customer_id  INTEGER NOT NULL REFERENCES customers(id),
  status       TEXT NOT NULL CHECK (status IN ('placed', 'shipped', 'delivered', 'returned')),
  placed_at    TEXT NOT NULL
);

CREATE TABLE order_items (
  order_id    INTEGER NOT NULL REFERENCES orders(id),
  product_id  INTEGER NOT NULL REFERENCES products(id),
  quantity    INTEGER NOT NULL,
  unit_price  REAL NOT NULL,
  PRIMARY KEY (order_id, product_id)
);

INSERT INTO customers (id, email, name, city, joined_at) VALUES
  (1, 'ada@example.com', 'Ada Lovelace', 'London', '2025-01-14'),
  (2, 'grace@example.com', 'Grace Hopper', 'New York', '2025-02-03'),
  (3, 'alan@example.com', 'Alan Turing', 'Manchester', '2025-03-22'),
  (4, 'edsger@example.com', 'Edsger Dijkstra', 'Eindhoven', '2025-05-09'),
  (5, 'barbara@example.com', 'Barbara Liskov', 'Boston', '2025-06-30');

INSERT INTO products (id, sku, name, category, price, stock) VALUES
  (1, 'BK-001', 'Structure and Interpretation of Computer Programs', 'books', 49.00, 12),
  (2, 'BK-002', 'The Art of Computer Programming, Vol. 1', 'books', 79.50, 4),
  (3, 'KB-010', 'Mechanical keyboard, brown switches', 'hardware', 129.00, 25),
  (4, 'MS-020', 'Vertical mouse', 'hardware', 59.90, 0),
  (5, 'MG-100', 'Mug: "It works on my machine"', 'merch', 14.00, 140),
  (6, 'ST-200', 'Sticker pack: rubber ducks', 'merch', 6.50, 300);

INSERT INTO orders (id, customer_id, status, placed_at) VALUES
  (1001, 1, 'delivered', '2025-07-01'),
  (1002, 1, 'shipped',   '2025-09-12'),
  (1003, 2, 'delivered', '2025-08-19'),
  (1004, 3, 'returned',  '2025-08-30'),
  (1005, 4, 'placed',    '2025-10-02'),
  (1006, 2, 'placed',    '2025-10-05');

INSERT INTO order_items (order_id, product_id, quantity, unit_price) VALUES
  (1001, 1, 1, 49.00),
  (1001, 5, 2, 14.00),
  (1002, 3, 1, 129.00),
  (1003, 2, 1, 79.50),
  (1003, 6, 4, 6.50),
  (1004, 4, 1, 59.90),
  (1005, 1, 2, 49.00),
  (1006, 5, 1, 14.00),
  (1006, 6, 10, 6.50);
