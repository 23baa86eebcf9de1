-- Live updates for the dashboard: every change that a page shows raises a NOTIFY on
-- "bria_changes" carrying only ids ("s:<session id>", "n:<node id>"), never content.
-- Postgres folds identical payloads within one transaction, so a transition that writes the
-- session, its messages and its evidence together sends one notification.

CREATE OR REPLACE FUNCTION bria_notify_session_change() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('bria_changes', 's:' || COALESCE(NEW."id", OLD."id")::text);
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION bria_notify_session_child_change() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('bria_changes', 's:' || COALESCE(NEW."sessionId", OLD."sessionId")::text);
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION bria_notify_node_change() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('bria_changes', 'n:' || COALESCE(NEW."id", OLD."id")::text);
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION bria_notify_token_change() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('bria_changes', 'n:' || COALESCE(NEW."nodeId", OLD."nodeId")::text);
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "Session_notify_change" AFTER INSERT OR UPDATE OR DELETE ON "Session"
  FOR EACH ROW EXECUTE FUNCTION bria_notify_session_change();
CREATE TRIGGER "Message_notify_change" AFTER INSERT OR UPDATE ON "Message"
  FOR EACH ROW EXECUTE FUNCTION bria_notify_session_child_change();
CREATE TRIGGER "SessionEvidence_notify_change" AFTER INSERT ON "SessionEvidence"
  FOR EACH ROW EXECUTE FUNCTION bria_notify_session_child_change();
CREATE TRIGGER "Node_notify_insert_delete" AFTER INSERT OR DELETE ON "Node"
  FOR EACH ROW EXECUTE FUNCTION bria_notify_node_change();
-- Heartbeats (lastSeenAt) and event sequence numbers change constantly and show nothing new.
CREATE TRIGGER "Node_notify_update" AFTER UPDATE ON "Node"
  FOR EACH ROW WHEN (
    (OLD."name", OLD."hostname", OLD."online", OLD."enabledExecutors", OLD."agentVersion", OLD."agentInstanceId", OLD."discoveredAt")
    IS DISTINCT FROM
    (NEW."name", NEW."hostname", NEW."online", NEW."enabledExecutors", NEW."agentVersion", NEW."agentInstanceId", NEW."discoveredAt")
  ) EXECUTE FUNCTION bria_notify_node_change();
CREATE TRIGGER "AgentToken_notify_change" AFTER INSERT OR UPDATE OR DELETE ON "AgentToken"
  FOR EACH ROW EXECUTE FUNCTION bria_notify_token_change();
