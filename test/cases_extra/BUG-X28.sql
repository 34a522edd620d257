-- BUG-X28: a window function over grouped rows (rank of each group's sum within its region): a change in one group re-ranks the other groups of its partition; a group moves to another region; a group disappears
-- source: modelled on StarRocks/Doris reports on window functions over aggregates in materialized views (no single report)
-- category: window functions with PARTITION BY over GROUP BY; partition moves
-- @view: SELECT region, shop, sum(amt) AS total, rank() OVER (PARTITION BY region ORDER BY sum(amt) DESC) AS rk, sum(sum(amt)) OVER (PARTITION BY region) AS region_total FROM sales GROUP BY region, shop
CREATE TABLE sales (id int PRIMARY KEY, region text, shop text, amt int);
INSERT INTO sales VALUES (1, 'n', 'a', 10), (2, 'n', 'b', 20), (3, 'n', 'c', 30), (4, 's', 'd', 5), (5, 's', 'e', 6);
-- @refresh
-- step 1: shop a overtakes every other shop of n
UPDATE sales SET amt = 100 WHERE id = 1;
-- @refresh
-- step 2: shop c moves to s
UPDATE sales SET region = 's' WHERE id = 3;
-- @refresh
-- step 3: shop d disappears and a tie appears in s
DELETE FROM sales WHERE id = 4;
INSERT INTO sales VALUES (6, 's', 'e', 24);
-- @refresh
-- @expect
SELECT region, shop, sum(amt) AS total, rank() OVER (PARTITION BY region ORDER BY sum(amt) DESC) AS rk, sum(sum(amt)) OVER (PARTITION BY region) AS region_total FROM sales GROUP BY region, shop;
