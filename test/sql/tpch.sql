-- TPC-H (issue 12): each of the 22 queries (TPC Benchmark H, clause 2.4, validation parameters) as a
-- dynamic table in auto mode, refreshed after inserts, deletes and updates of orders and lineitems,
-- and checked with dynview.verify() (rows compared by text form and by =) after every refresh.
-- Changes to the published text: ORDER BY ... LIMIT of Q3, Q10 and Q18 gets the group key as a last
-- sort key, so that ties at the limit cannot make two correct evaluations differ.
SET client_min_messages = warning;
-- (no CHANGE_VOLUME fallback: it compares a window with the planner's estimate of the sources'
-- rows, which autovacuum's analyze changes at times of its own, so which refresh is FULL would vary)
SET dynview.full_refresh_change_ratio = 0;
CREATE SCHEMA tpch;
SET search_path = tpch, public;
-- The TPC-H schema (TPC Benchmark H, clause 1.4) with a small deterministic data generator: every
-- value is drawn from the key by hashint4, from the value domains of clause 4.2.3 (cut down), so
-- that each query's predicates select some rows.  tpch_load(scale) loads about 150*scale orders.
CREATE TABLE region (r_regionkey int PRIMARY KEY, r_name char(25) NOT NULL, r_comment varchar(152));
CREATE TABLE nation (n_nationkey int PRIMARY KEY, n_name char(25) NOT NULL, n_regionkey int NOT NULL, n_comment varchar(152));
CREATE TABLE supplier (s_suppkey int PRIMARY KEY, s_name char(25), s_address varchar(40), s_nationkey int,
                       s_phone char(15), s_acctbal numeric(15,2), s_comment varchar(101));
CREATE TABLE customer (c_custkey int PRIMARY KEY, c_name varchar(25), c_address varchar(40), c_nationkey int,
                       c_phone char(15), c_acctbal numeric(15,2), c_mktsegment char(10), c_comment varchar(117));
CREATE TABLE part (p_partkey int PRIMARY KEY, p_name varchar(55), p_mfgr char(25), p_brand char(10), p_type varchar(25),
                   p_size int, p_container char(10), p_retailprice numeric(15,2), p_comment varchar(23));
CREATE TABLE partsupp (ps_partkey int, ps_suppkey int, ps_availqty int, ps_supplycost numeric(15,2), ps_comment varchar(199),
                       PRIMARY KEY (ps_partkey, ps_suppkey));
CREATE TABLE orders (o_orderkey int PRIMARY KEY, o_custkey int, o_orderstatus char(1), o_totalprice numeric(15,2),
                     o_orderdate date, o_orderpriority char(15), o_clerk char(15), o_shippriority int, o_comment varchar(79));
CREATE TABLE lineitem (l_orderkey int, l_partkey int, l_suppkey int, l_linenumber int, l_quantity numeric(15,2),
                       l_extendedprice numeric(15,2), l_discount numeric(15,2), l_tax numeric(15,2), l_returnflag char(1),
                       l_linestatus char(1), l_shipdate date, l_commitdate date, l_receiptdate date, l_shipinstruct char(25),
                       l_shipmode char(10), l_comment varchar(44), PRIMARY KEY (l_orderkey, l_linenumber));

-- a deterministic draw in [0, n) for (key, salt) (the same for keys below 271,000 as key * 7919 + salt)
CREATE FUNCTION tpch_pick(key int, salt int, n int) RETURNS int LANGUAGE sql IMMUTABLE
  AS $$ SELECT abs(hashint4(((key::int8 * 7919 + salt) % 2147483647)::int) % n) $$;
CREATE FUNCTION tpch_word(words text[], key int, salt int) RETURNS text LANGUAGE sql IMMUTABLE
  AS $$ SELECT words[1 + tpch_pick(key, salt, array_length(words, 1))] $$;

INSERT INTO region VALUES (0, 'AFRICA', 'lar deposits'), (1, 'AMERICA', 'hs use ironic'), (2, 'ASIA', 'ges. thinly'),
  (3, 'EUROPE', 'ly final courts'), (4, 'MIDDLE EAST', 'uickly special');
INSERT INTO nation VALUES (0, 'ALGERIA', 0, 'haggle'), (1, 'ARGENTINA', 1, 'al foxes'), (2, 'BRAZIL', 1, 'y alongside'),
  (3, 'CANADA', 1, 'eas hang'), (4, 'EGYPT', 4, 'y above'), (5, 'ETHIOPIA', 0, 'ven packages'), (6, 'FRANCE', 3, 'refully final'),
  (7, 'GERMANY', 3, 'l platelets'), (8, 'INDIA', 2, 'ss excuses'), (9, 'INDONESIA', 2, 'slyly express'), (10, 'IRAN', 4, 'efully alongside'),
  (11, 'IRAQ', 4, 'nic deposits'), (12, 'JAPAN', 2, 'ously'), (13, 'JORDAN', 4, 'ic deposits'), (14, 'KENYA', 0, 'pending'),
  (15, 'MOROCCO', 0, 'rns'), (16, 'MOZAMBIQUE', 0, 's. ironic'), (17, 'PERU', 1, 'platelets'), (18, 'CHINA', 2, 'c dependencies'),
  (19, 'ROMANIA', 3, 'ular asymptotes'), (20, 'SAUDI ARABIA', 4, 'ts. silent'), (21, 'VIETNAM', 2, 'hely enticingly'),
  (22, 'RUSSIA', 3, 'requests'), (23, 'UNITED KINGDOM', 3, 'eans boost'), (24, 'UNITED STATES', 1, 'y final packages');

CREATE FUNCTION tpch_part(k int) RETURNS part LANGUAGE sql IMMUTABLE AS $$
  SELECT k,
         tpch_word('{almond,antique,forest,green,lace,linen,navy,royal,smoke,thistle}', k, 1) || ' ' ||
           tpch_word('{azure,blush,chocolate,forest,green,ivory,khaki,misty,peru,tomato}', k, 2),
         'Manufacturer#' || (1 + tpch_pick(k, 3, 5)),
         'Brand#' || (1 + tpch_pick(k, 3, 5)) || (1 + tpch_pick(k, 4, 5)),
         ('{STANDARD,SMALL,MEDIUM,LARGE,ECONOMY,PROMO}'::text[])[1 + k % 6] || ' ' ||
           ('{ANODIZED,BURNISHED,PLATED,POLISHED,BRUSHED}'::text[])[1 + (k / 6) % 5] || ' ' ||
           ('{TIN,NICKEL,BRASS,STEEL,COPPER}'::text[])[1 + (k / 30) % 5],
         tpch_word('{1,3,9,14,15,19,23,36,45,49}', k, 8)::int,
         tpch_word('{SM,MED,LG,JUMBO,WRAP}', k, 9) || ' ' || tpch_word('{CASE,BOX,BAG,JAR,PKG,PACK,CAN,DRUM}', k, 10),
         (900 + k % 200 + (k % 100) / 100.0)::numeric(15,2),
         tpch_word('{final,ironic,regular,express}', k, 11) $$;

-- tpch_load(scale): parts 75*scale (every p_type from 150 on), suppliers 4*scale (at least 10; their nations
-- cycle so that the first ten include FRANCE, GERMANY, CANADA and SAUDI ARABIA), customers 30*scale, orders 150*scale
CREATE FUNCTION tpch_load(scale int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE nsupp int := greatest(10, 4 * scale);
BEGIN
  INSERT INTO supplier SELECT s, 'Supplier#' || lpad(s::text, 9, '0'), 'addr' || s, (s * 7) % 25,
         (10 + (s * 7) % 25) || '-555-' || lpad(s::text, 4, '0'), (tpch_pick(s, 21, 1100000) - 99999) / 100.0,
         CASE WHEN tpch_pick(s, 22, 5) = 0 THEN 'Customer very Complaints' ELSE 'carefully regular' END
    FROM generate_series(1, nsupp) s;
  INSERT INTO part SELECT (tpch_part(p)).* FROM generate_series(1, 75 * scale) p;
  INSERT INTO partsupp SELECT p, 1 + (p + j * (nsupp / 4 + 1)) % nsupp, 1 + tpch_pick(p, 30 + j, 9999),
         (1 + tpch_pick(p, 40 + j, 100000)) / 100.0, 'ps comment'
    FROM generate_series(1, 75 * scale) p, generate_series(0, 3) j ON CONFLICT DO NOTHING;
  INSERT INTO customer SELECT c, 'Customer#' || lpad(c::text, 9, '0'), 'caddr' || c, tpch_pick(c, 50, 25),
         (10 + tpch_pick(c, 50, 25)) || '-444-' || lpad(c::text, 4, '0'), (tpch_pick(c, 51, 1100000) - 99999) / 100.0,
         tpch_word('{AUTOMOBILE,BUILDING,FURNITURE,MACHINERY,HOUSEHOLD}', c, 52),
         CASE WHEN tpch_pick(c, 53, 4) = 0 THEN 'the special pending requests' ELSE 'blithely even' END
    FROM generate_series(1, 30 * scale) c;
  PERFORM tpch_orders(1, 150 * scale, 30 * scale, 75 * scale, nsupp);
END $$;

-- orders (and their 1..7 lineitems) with keys lo..hi; every third customer orders nothing (Q13, Q22)
CREATE FUNCTION tpch_orders(lo int, hi int, ncust int, nparts int, nsupp int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO orders SELECT o, 1 + 3 * tpch_pick(o, 60, greatest(ncust / 3, 1)) + tpch_pick(o, 61, 2),
         tpch_word('{F,O,P}', o, 62), 0, date '1992-01-01' + tpch_pick(o, 63, 2400),
         tpch_word('{1-URGENT,2-HIGH,3-MEDIUM,4-NOT SPECIFIED,5-LOW}', o, 64), 'Clerk#' || lpad(tpch_pick(o, 65, 1000)::text, 9, '0'),
         0, CASE WHEN tpch_pick(o, 66, 5) = 0 THEN 'special deposits requests' ELSE 'furiously regular' END
    FROM generate_series(lo, hi) o;
  INSERT INTO lineitem SELECT o.o_orderkey, p, 1 + (p + tpch_pick(o.o_orderkey, 70 + n, 4) * (nsupp / 4 + 1)) % nsupp, n,
         1 + tpch_pick(o.o_orderkey, 80 + n, 50), 0, tpch_pick(o.o_orderkey, 90 + n, 11) / 100.0,
         tpch_pick(o.o_orderkey, 100 + n, 9) / 100.0,
         CASE WHEN o.o_orderdate + 60 < date '1995-06-17' THEN tpch_word('{R,A}', o.o_orderkey, 110 + n) ELSE 'N' END,
         CASE WHEN o.o_orderdate + 60 < date '1995-06-17' THEN 'F' ELSE 'O' END,
         o.o_orderdate + 1 + tpch_pick(o.o_orderkey, 120 + n, 121), o.o_orderdate + 30 + tpch_pick(o.o_orderkey, 130 + n, 61),
         o.o_orderdate + 2 + tpch_pick(o.o_orderkey, 120 + n, 121) + tpch_pick(o.o_orderkey, 140 + n, 30),
         tpch_word('{DELIVER IN PERSON,COLLECT COD,NONE,TAKE BACK RETURN}', o.o_orderkey, 150 + n),
         tpch_word('{REG AIR,AIR,RAIL,SHIP,TRUCK,MAIL,FOB}', o.o_orderkey, 160 + n), 'li comment'
    FROM orders o, generate_series(1, 7) n,
         LATERAL (SELECT 1 + tpch_pick(o.o_orderkey, 170 + n, nparts) AS p) pp
   WHERE o.o_orderkey BETWEEN lo AND hi AND n <= 1 + tpch_pick(o.o_orderkey, 180, 7);
  UPDATE lineitem l SET l_extendedprice = l_quantity * p.p_retailprice FROM part p
   WHERE p.p_partkey = l.l_partkey AND l.l_orderkey BETWEEN lo AND hi;
  UPDATE orders o SET o_totalprice = (SELECT coalesce(sum(l_extendedprice * (1 + l_tax) * (1 - l_discount)), 0)::numeric(15,2)
                                        FROM lineitem l WHERE l.l_orderkey = o.o_orderkey)
   WHERE o.o_orderkey BETWEEN lo AND hi;
END $$;

SELECT tpch_load(2);
SELECT (SELECT count(*) FROM orders) AS orders, (SELECT count(*) FROM lineitem) AS lineitems;

CREATE TABLE queries (q int PRIMARY KEY, sql text);
INSERT INTO queries VALUES
(1, $q$select l_returnflag, l_linestatus, sum(l_quantity) as sum_qty, sum(l_extendedprice) as sum_base_price,
  sum(l_extendedprice * (1 - l_discount)) as sum_disc_price, sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge,
  avg(l_quantity) as avg_qty, avg(l_extendedprice) as avg_price, avg(l_discount) as avg_disc, count(*) as count_order
from lineitem where l_shipdate <= date '1998-12-01' - interval '90' day
group by l_returnflag, l_linestatus order by l_returnflag, l_linestatus$q$),
(2, $q$select s_acctbal, s_name, n_name, p_partkey, p_mfgr, s_address, s_phone, s_comment
from part, supplier, partsupp, nation, region
where p_partkey = ps_partkey and s_suppkey = ps_suppkey and p_size = 15 and p_type like '%BRASS'
  and s_nationkey = n_nationkey and n_regionkey = r_regionkey and r_name = 'EUROPE'
  and ps_supplycost = (select min(ps_supplycost) from partsupp, supplier, nation, region
                        where p_partkey = ps_partkey and s_suppkey = ps_suppkey and s_nationkey = n_nationkey
                          and n_regionkey = r_regionkey and r_name = 'EUROPE')
order by s_acctbal desc, n_name, s_name, p_partkey limit 100$q$),
(3, $q$select l_orderkey, sum(l_extendedprice * (1 - l_discount)) as revenue, o_orderdate, o_shippriority
from customer, orders, lineitem
where c_mktsegment = 'BUILDING' and c_custkey = o_custkey and l_orderkey = o_orderkey
  and o_orderdate < date '1995-03-15' and l_shipdate > date '1995-03-15'
group by l_orderkey, o_orderdate, o_shippriority order by revenue desc, o_orderdate, l_orderkey limit 10$q$),
(4, $q$select o_orderpriority, count(*) as order_count from orders
where o_orderdate >= date '1993-07-01' and o_orderdate < date '1993-07-01' + interval '3' month
  and exists (select * from lineitem where l_orderkey = o_orderkey and l_commitdate < l_receiptdate)
group by o_orderpriority order by o_orderpriority$q$),
(5, $q$select n_name, sum(l_extendedprice * (1 - l_discount)) as revenue
from customer, orders, lineitem, supplier, nation, region
where c_custkey = o_custkey and l_orderkey = o_orderkey and l_suppkey = s_suppkey and c_nationkey = s_nationkey
  and s_nationkey = n_nationkey and n_regionkey = r_regionkey and r_name = 'ASIA'
  and o_orderdate >= date '1994-01-01' and o_orderdate < date '1994-01-01' + interval '1' year
group by n_name order by revenue desc$q$),
(6, $q$select sum(l_extendedprice * l_discount) as revenue from lineitem
where l_shipdate >= date '1994-01-01' and l_shipdate < date '1994-01-01' + interval '1' year
  and l_discount between 0.06 - 0.01 and 0.06 + 0.01 and l_quantity < 24$q$),
(7, $q$select supp_nation, cust_nation, l_year, sum(volume) as revenue
from (select n1.n_name as supp_nation, n2.n_name as cust_nation, extract(year from l_shipdate) as l_year,
             l_extendedprice * (1 - l_discount) as volume
        from supplier, lineitem, orders, customer, nation n1, nation n2
       where s_suppkey = l_suppkey and o_orderkey = l_orderkey and c_custkey = o_custkey
         and s_nationkey = n1.n_nationkey and c_nationkey = n2.n_nationkey
         and ((n1.n_name = 'FRANCE' and n2.n_name = 'GERMANY') or (n1.n_name = 'GERMANY' and n2.n_name = 'FRANCE'))
         and l_shipdate between date '1995-01-01' and date '1996-12-31') as shipping
group by supp_nation, cust_nation, l_year order by supp_nation, cust_nation, l_year$q$),
(8, $q$select o_year, sum(case when nation = 'BRAZIL' then volume else 0 end) / sum(volume) as mkt_share
from (select extract(year from o_orderdate) as o_year, l_extendedprice * (1 - l_discount) as volume, n2.n_name as nation
        from part, supplier, lineitem, orders, customer, nation n1, nation n2, region
       where p_partkey = l_partkey and s_suppkey = l_suppkey and l_orderkey = o_orderkey and o_custkey = c_custkey
         and c_nationkey = n1.n_nationkey and n1.n_regionkey = r_regionkey and r_name = 'AMERICA'
         and s_nationkey = n2.n_nationkey and o_orderdate between date '1995-01-01' and date '1996-12-31'
         and p_type = 'ECONOMY ANODIZED STEEL') as all_nations
group by o_year order by o_year$q$),
(9, $q$select nation, o_year, sum(amount) as sum_profit
from (select n_name as nation, extract(year from o_orderdate) as o_year,
             l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity as amount
        from part, supplier, lineitem, partsupp, orders, nation
       where s_suppkey = l_suppkey and ps_suppkey = l_suppkey and ps_partkey = l_partkey and p_partkey = l_partkey
         and o_orderkey = l_orderkey and s_nationkey = n_nationkey and p_name like '%green%') as profit
group by nation, o_year order by nation, o_year desc$q$),
(10, $q$select c_custkey, c_name, sum(l_extendedprice * (1 - l_discount)) as revenue, c_acctbal, n_name, c_address, c_phone, c_comment
from customer, orders, lineitem, nation
where c_custkey = o_custkey and l_orderkey = o_orderkey and o_orderdate >= date '1993-10-01'
  and o_orderdate < date '1993-10-01' + interval '3' month and l_returnflag = 'R' and c_nationkey = n_nationkey
group by c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment order by revenue desc, c_custkey limit 20$q$),
(11, $q$select ps_partkey, sum(ps_supplycost * ps_availqty) as value
from partsupp, supplier, nation
where ps_suppkey = s_suppkey and s_nationkey = n_nationkey and n_name = 'GERMANY'
group by ps_partkey having sum(ps_supplycost * ps_availqty) >
  (select sum(ps_supplycost * ps_availqty) * 0.0001 from partsupp, supplier, nation
    where ps_suppkey = s_suppkey and s_nationkey = n_nationkey and n_name = 'GERMANY')
order by value desc$q$),
(12, $q$select l_shipmode,
  sum(case when o_orderpriority = '1-URGENT' or o_orderpriority = '2-HIGH' then 1 else 0 end) as high_line_count,
  sum(case when o_orderpriority <> '1-URGENT' and o_orderpriority <> '2-HIGH' then 1 else 0 end) as low_line_count
from orders, lineitem
where o_orderkey = l_orderkey and l_shipmode in ('MAIL', 'SHIP') and l_commitdate < l_receiptdate
  and l_shipdate < l_commitdate and l_receiptdate >= date '1994-01-01' and l_receiptdate < date '1994-01-01' + interval '1' year
group by l_shipmode order by l_shipmode$q$),
(13, $q$select c_count, count(*) as custdist
from (select c_custkey, count(o_orderkey) from customer left outer join orders
        on c_custkey = o_custkey and o_comment not like '%special%requests%' group by c_custkey) as c_orders (c_custkey, c_count)
group by c_count order by custdist desc, c_count desc$q$),
(14, $q$select 100.00 * sum(case when p_type like 'PROMO%' then l_extendedprice * (1 - l_discount) else 0 end)
  / sum(l_extendedprice * (1 - l_discount)) as promo_revenue
from lineitem, part
where l_partkey = p_partkey and l_shipdate >= date '1995-09-01' and l_shipdate < date '1995-09-01' + interval '1' month$q$),
(15, $q$with revenue0 (supplier_no, total_revenue) as (
  select l_suppkey, sum(l_extendedprice * (1 - l_discount)) from lineitem
   where l_shipdate >= date '1996-01-01' and l_shipdate < date '1996-01-01' + interval '3' month group by l_suppkey)
select s_suppkey, s_name, s_address, s_phone, total_revenue from supplier, revenue0
where s_suppkey = supplier_no and total_revenue = (select max(total_revenue) from revenue0)
order by s_suppkey$q$),
(16, $q$select p_brand, p_type, p_size, count(distinct ps_suppkey) as supplier_cnt
from partsupp, part
where p_partkey = ps_partkey and p_brand <> 'Brand#45' and p_type not like 'MEDIUM POLISHED%'
  and p_size in (49, 14, 23, 45, 19, 3, 36, 9)
  and ps_suppkey not in (select s_suppkey from supplier where s_comment like '%Customer%Complaints%')
group by p_brand, p_type, p_size order by supplier_cnt desc, p_brand, p_type, p_size$q$),
(17, $q$select sum(l_extendedprice) / 7.0 as avg_yearly
from lineitem, part
where p_partkey = l_partkey and p_brand = 'Brand#23' and p_container = 'MED BOX'
  and l_quantity < (select 0.2 * avg(l_quantity) from lineitem where l_partkey = p_partkey)$q$),
(18, $q$select c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, sum(l_quantity)
from customer, orders, lineitem
where o_orderkey in (select l_orderkey from lineitem group by l_orderkey having sum(l_quantity) > 300)
  and c_custkey = o_custkey and o_orderkey = l_orderkey
group by c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice order by o_totalprice desc, o_orderdate, o_orderkey limit 100$q$),
(19, $q$select sum(l_extendedprice * (1 - l_discount)) as revenue
from lineitem, part
where (p_partkey = l_partkey and p_brand = 'Brand#12' and p_container in ('SM CASE', 'SM BOX', 'SM PACK', 'SM PKG')
       and l_quantity >= 1 and l_quantity <= 1 + 10 and p_size between 1 and 5
       and l_shipmode in ('AIR', 'AIR REG') and l_shipinstruct = 'DELIVER IN PERSON')
   or (p_partkey = l_partkey and p_brand = 'Brand#23' and p_container in ('MED BAG', 'MED BOX', 'MED PKG', 'MED PACK')
       and l_quantity >= 10 and l_quantity <= 10 + 10 and p_size between 1 and 10
       and l_shipmode in ('AIR', 'AIR REG') and l_shipinstruct = 'DELIVER IN PERSON')
   or (p_partkey = l_partkey and p_brand = 'Brand#34' and p_container in ('LG CASE', 'LG BOX', 'LG PACK', 'LG PKG')
       and l_quantity >= 20 and l_quantity <= 20 + 10 and p_size between 1 and 15
       and l_shipmode in ('AIR', 'AIR REG') and l_shipinstruct = 'DELIVER IN PERSON')$q$),
(20, $q$select s_name, s_address from supplier, nation
where s_suppkey in (select ps_suppkey from partsupp
                     where ps_partkey in (select p_partkey from part where p_name like 'forest%')
                       and ps_availqty > (select 0.5 * sum(l_quantity) from lineitem
                                           where l_partkey = ps_partkey and l_suppkey = ps_suppkey
                                             and l_shipdate >= date '1994-01-01' and l_shipdate < date '1994-01-01' + interval '1' year))
  and s_nationkey = n_nationkey and n_name = 'CANADA'
order by s_name$q$),
(21, $q$select s_name, count(*) as numwait
from supplier, lineitem l1, orders, nation
where s_suppkey = l1.l_suppkey and o_orderkey = l1.l_orderkey and o_orderstatus = 'F' and l1.l_receiptdate > l1.l_commitdate
  and exists (select * from lineitem l2 where l2.l_orderkey = l1.l_orderkey and l2.l_suppkey <> l1.l_suppkey)
  and not exists (select * from lineitem l3 where l3.l_orderkey = l1.l_orderkey and l3.l_suppkey <> l1.l_suppkey
                    and l3.l_receiptdate > l3.l_commitdate)
  and s_nationkey = n_nationkey and n_name = 'SAUDI ARABIA'
group by s_name order by numwait desc, s_name limit 100$q$),
(22, $q$select cntrycode, count(*) as numcust, sum(c_acctbal) as totacctbal
from (select substring(c_phone from 1 for 2) as cntrycode, c_acctbal from customer
       where substring(c_phone from 1 for 2) in ('13', '31', '23', '29', '30', '18', '17')
         and c_acctbal > (select avg(c_acctbal) from customer where c_acctbal > 0.00
                            and substring(c_phone from 1 for 2) in ('13', '31', '23', '29', '30', '18', '17'))
         and not exists (select * from orders where o_custkey = c_custkey)) as custsale
group by cntrycode order by cntrycode$q$);

SELECT q, dynview.create_dynamic_table('tpch.q' || q, sql, schedule => 'manual') IS NOT NULL AS created
  FROM queries ORDER BY q;
-- the queries select rows from this data (each query's row count at creation)
CREATE FUNCTION row_counts() RETURNS TABLE (q int, n bigint) LANGUAGE plpgsql AS $$
BEGIN
  FOR q IN SELECT queries.q FROM queries ORDER BY 1 LOOP
    EXECUTE format('SELECT count(*) FROM tpch.q%s', q) INTO n;
    RETURN NEXT;
  END LOOP;
END $$;
SELECT string_agg(q || ':' || n, ' ' ORDER BY q) AS row_counts FROM row_counts();
SELECT q, d.effective_mode, coalesce(d.mode_reason_code, '') AS reason
  FROM queries JOIN dynview.dynamic_tables d ON d.name = ('tpch.q' || q)::regclass ORDER BY q;

-- refresh every table, verify each; a table that does not verify is named (with verify()'s WARNING)
CREATE FUNCTION refresh_and_verify() RETURNS TABLE (refreshed int, incremental int, verified int, failed text)
LANGUAGE plpgsql AS $$
DECLARE r record; mode text; ok boolean;
BEGIN
  refreshed := 0; incremental := 0; verified := 0; failed := '';
  FOR r IN SELECT q FROM queries ORDER BY q LOOP
    SELECT h.refresh_mode INTO mode FROM dynview.refresh('tpch.q' || r.q) h;
    refreshed := refreshed + 1;
    incremental := incremental + (mode = 'INCREMENTAL')::int;
    ok := dynview.verify('tpch.q' || r.q);
    IF ok THEN verified := verified + 1; ELSE failed := failed || ' q' || r.q; END IF;
  END LOOP;
  RETURN NEXT;
END $$;

-- round 1: new orders with their lineitems
SELECT tpch_orders(1001, 1060, 60, 150, 10);
SELECT refreshed, incremental, verified, failed FROM refresh_and_verify();
-- round 2: orders deleted with their lineitems; lineitems of other orders deleted
DELETE FROM lineitem WHERE l_orderkey IN (SELECT o_orderkey FROM orders WHERE o_orderkey % 7 = 3);
DELETE FROM orders WHERE o_orderkey % 7 = 3;
DELETE FROM lineitem WHERE l_linenumber = 2 AND l_orderkey % 5 = 1;
SELECT refreshed, incremental, verified, failed FROM refresh_and_verify();
-- round 3: lineitems and orders updated (keys, dates, flags, text of char(n) columns), more inserts
UPDATE lineitem SET l_quantity = l_quantity + 30, l_shipmode = 'MAIL', l_discount = 0.06 WHERE l_orderkey % 6 = 0;
UPDATE lineitem SET l_returnflag = 'R', l_shipdate = date '1994-06-01' WHERE l_orderkey % 11 = 4;
UPDATE orders SET o_orderpriority = '1-URGENT', o_orderdate = date '1993-08-15' WHERE o_orderkey % 9 = 2;
UPDATE customer SET c_mktsegment = 'BUILDING' WHERE c_custkey % 4 = 0;
SELECT tpch_orders(1061, 1090, 60, 150, 10);
SELECT refreshed, incremental, verified, failed FROM refresh_and_verify();
-- round 4: a batch of deletes and inserts in one transaction
BEGIN;
DELETE FROM lineitem WHERE l_orderkey BETWEEN 1001 AND 1030;
DELETE FROM orders WHERE o_orderkey BETWEEN 1001 AND 1030;
SELECT tpch_orders(1091, 1120, 60, 150, 10);
COMMIT;
SELECT refreshed, incremental, verified, failed FROM refresh_and_verify();
SELECT string_agg(q || ':' || n, ' ' ORDER BY q) AS row_counts FROM row_counts();

RESET search_path;
SELECT dynview.drop_dynamic_table('tpch.q' || q) FROM tpch.queries ORDER BY q;
DROP SCHEMA tpch CASCADE;
