-- Scenario B (design section 10): a primary-key source with INSERT, UPDATE and DELETE.
SET client_min_messages = warning;
CREATE TABLE t_department (dept_id bigint PRIMARY KEY, name text, description text);
INSERT INTO t_department VALUES (1001, 'HR', 'Human Resources'), (1002, 'IT', 'Information Technology'),
                                (1003, 'Finance', 'Finance and Accounting');
SELECT dynview.create_dynamic_table('dlmv_department', 'SELECT * FROM t_department', schedule => 'manual');
SELECT * FROM dlmv_department ORDER BY dept_id;
SELECT dynview.verify('dlmv_department');

INSERT INTO t_department VALUES (1004, 'Marketing', 'Brand and Growth');
UPDATE t_department SET description = 'HR and Admin' WHERE dept_id = 1001;
DELETE FROM t_department WHERE dept_id = 1003;
SELECT state, refresh_mode, refresh_trigger, rows_inserted, rows_deleted FROM dynview.refresh('dlmv_department');
SELECT * FROM dlmv_department ORDER BY dept_id;
SELECT dynview.verify('dlmv_department');

-- a refresh with nothing to do reports honest counts
SELECT state, refresh_mode, rows_inserted, rows_deleted FROM dynview.refresh('dlmv_department');
SELECT dynview.verify('dlmv_department');

-- the table holds exactly the query's columns and types
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
 WHERE attrelid = 'dlmv_department'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum;

SELECT refresh_trigger, rows_inserted, rows_deleted FROM dynview.refresh_history('dlmv_department', 2);
SELECT dynview.drop_dynamic_table('dlmv_department');
DROP TABLE t_department;
