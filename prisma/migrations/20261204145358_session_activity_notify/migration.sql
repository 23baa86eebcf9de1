-- Live updates (issue 15): a stored or updated activity row raises the session's change NOTIFY, as
-- its messages do, so an open session page refetches even when a report changes rows only (a replay
-- of an older turn leaves the session row as it is). Identical payloads of one transaction fold
-- into one notification.
CREATE TRIGGER "SessionActivity_notify_change" AFTER INSERT OR UPDATE ON "SessionActivity"
  FOR EACH ROW EXECUTE FUNCTION bria_notify_session_child_change();
