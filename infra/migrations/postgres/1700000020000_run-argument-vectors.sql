-- Up Migration

-- A run's command as an argument vector (issue 50, item 5; domain/runs/command-line.ts): run
-- with no shell, each word as sent. `command` keeps a shell command line: the one placed, or the
-- vector quoted as one that reads back to the same words. Rows from before hold shell command
-- lines, so NULL here; events from then carry no vector, so a projection replayed from the start
-- writes the same.
ALTER TABLE runs ADD COLUMN command_argv text[];

-- Down Migration
ALTER TABLE runs DROP COLUMN command_argv;
