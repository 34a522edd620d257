-- BUG-X20: char(n), varchar and text mixed in join and group keys: 'ab' in char(4) equals 'ab' in varchar but not 'ab ' in varchar; trailing blanks change group membership; the text form of a char(n) key is padded
-- source: modelled on TiDB/MySQL-family and Doris reports about CHAR padding in join keys of materialized views (no single report)
-- category: char(n)/varchar/text mixes in join keys; trailing spaces
-- @view: SELECT c.code, v.vcode, v.n, c.code::text AS ctext, length(v.vcode) AS vlen FROM cc c JOIN vv v ON c.code = v.vcode
CREATE TABLE cc (id int PRIMARY KEY, code char(4));
CREATE TABLE vv (id int PRIMARY KEY, vcode varchar(6), n int);
INSERT INTO cc VALUES (1, 'ab'), (2, 'abc'), (3, 'x');
INSERT INTO vv VALUES (1, 'ab', 1), (2, 'ab ', 2), (3, 'abc', 3), (4, 'x  ', 4);
-- @refresh
-- step 1: trailing blanks added to and removed from varchar keys
UPDATE vv SET vcode = 'ab' WHERE id = 2;
UPDATE vv SET vcode = 'abc ' WHERE id = 3;
-- @refresh
-- step 2: a char(4) key rewritten with trailing blanks (the same char(4) value) and another changed
UPDATE cc SET code = 'ab  ' WHERE id = 1;
UPDATE cc SET code = 'x' WHERE id = 2;
UPDATE vv SET vcode = 'x' WHERE id = 4;
-- @refresh
-- @expect
SELECT c.code, v.vcode, v.n, c.code::text AS ctext, length(v.vcode) AS vlen FROM cc c JOIN vv v ON c.code = v.vcode;
