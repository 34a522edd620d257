-- Tester's finding (s10-brk): string constants with a backslash and standard_conforming_strings.
-- The definition was deparsed under the creating session's standard_conforming_strings and parsed
-- again under the refreshing session's.  Created under "off", WHERE t = 'a\\b' (the value a\b)
-- was stored as 'a\\b', which every refresh in a default session reads as a\\b: the table held
-- the rows of another query, and verify() (which parses the same stored text) said true after
-- a refresh.  Created in a default session, a refresh in a session with
-- standard_conforming_strings = off read 'a\b' as an escape: a FULL refresh lost every row and
-- an expression t || '\x' gave other text; verify() in that session said true.
-- Fixed: dynview deparses and parses its definitions, and runs its statements, with
-- standard_conforming_strings = on whatever the session's (dv_set_output_styles,
-- dv_safe_search_path_push, dv_parse_definition).  Correct result: every table equals the query
-- the user gave, compared by text in a default session.
SET client_min_messages = warning;
CREATE TABLE brk10_bs (id int PRIMARY KEY, t text);
INSERT INTO brk10_bs VALUES (1, 'a\b'), (2, 'a\\b'), (3, 'ab');
SELECT dynview.create_dynamic_table('brk10_bs_on', $$SELECT id, t FROM brk10_bs WHERE t = 'a\b'$$,
                                    schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created;
SELECT dynview.create_dynamic_table('brk10_bs_full', $$SELECT id, t || '\x' AS u FROM brk10_bs$$,
                                    schedule => 'manual', refresh_mode => 'full') IS NOT NULL AS created;
SET standard_conforming_strings = off;
SET escape_string_warning = off;
-- (the value a\b, written for this setting)
SELECT dynview.create_dynamic_table('brk10_bs_off', $$SELECT id, t FROM brk10_bs WHERE t = 'a\\b'$$,
                                    schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created;
RESET standard_conforming_strings;
SELECT id, t FROM brk10_bs_off ORDER BY id;
INSERT INTO brk10_bs VALUES (4, 'a\b'), (5, 'a\\b');
-- refreshed in a session with standard_conforming_strings off, and in a default one
SET standard_conforming_strings = off;
SELECT refresh_mode FROM dynview.refresh('brk10_bs_on');
SELECT refresh_mode FROM dynview.refresh('brk10_bs_full');
RESET standard_conforming_strings;
SELECT refresh_mode FROM dynview.refresh('brk10_bs_off');
RESET escape_string_warning;
SELECT id, t FROM brk10_bs_on ORDER BY id;
SELECT id, t FROM brk10_bs_off ORDER BY id;
SELECT id, u FROM brk10_bs_full ORDER BY id;
-- each table against the user's query, by text
SELECT (SELECT count(*) FROM ((SELECT ROW(d.*)::text FROM brk10_bs_on d EXCEPT ALL
                               SELECT ROW(q.*)::text FROM (SELECT id, t FROM brk10_bs WHERE t = 'a\b') q)
                              UNION ALL (SELECT ROW(q.*)::text FROM (SELECT id, t FROM brk10_bs WHERE t = 'a\b') q
                               EXCEPT ALL SELECT ROW(d.*)::text FROM brk10_bs_on d)) x) AS on_differs,
       (SELECT count(*) FROM ((SELECT ROW(d.*)::text FROM brk10_bs_off d EXCEPT ALL
                               SELECT ROW(q.*)::text FROM (SELECT id, t FROM brk10_bs WHERE t = 'a\b') q)
                              UNION ALL (SELECT ROW(q.*)::text FROM (SELECT id, t FROM brk10_bs WHERE t = 'a\b') q
                               EXCEPT ALL SELECT ROW(d.*)::text FROM brk10_bs_off d)) x) AS off_differs,
       (SELECT count(*) FROM ((SELECT ROW(d.*)::text FROM brk10_bs_full d EXCEPT ALL
                               SELECT ROW(q.*)::text FROM (SELECT id, t || '\x' AS u FROM brk10_bs) q)
                              UNION ALL (SELECT ROW(q.*)::text FROM (SELECT id, t || '\x' AS u FROM brk10_bs) q
                               EXCEPT ALL SELECT ROW(d.*)::text FROM brk10_bs_full d)) x) AS full_differs;
SELECT dynview.verify('brk10_bs_on') AS on_verified, dynview.verify('brk10_bs_off') AS off_verified,
       dynview.verify('brk10_bs_full') AS full_verified;
SELECT dynview.drop_dynamic_table('brk10_bs_on'), dynview.drop_dynamic_table('brk10_bs_off'),
       dynview.drop_dynamic_table('brk10_bs_full');
DROP TABLE brk10_bs;
