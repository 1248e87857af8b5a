-- Mailboxes feature: the mailbox projection (per recipient, with an unread flag) and the open inboxes.
-- Written only by the mailbox-messages processor; rebuilt from position 0 by its reset.
CREATE TABLE {{schema}}.mailbox_inboxes (
  team        text NOT NULL,
  member_id   text NOT NULL,
  role        text NOT NULL,
  opened_at   timestamptz NOT NULL,
  -- The inbox stream version its latest read marker covers: take-unread reads the stream from here
  -- (a lagging value only makes it read more, never miss a copy).
  read_through_version bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (team, member_id)
);

CREATE TABLE {{schema}}.mailbox_messages (
  team                 text NOT NULL,
  recipient            text NOT NULL,
  message_id           uuid NOT NULL,
  -- Order within the recipient's inbox (its stream version): "unread of X in order".
  inbox_version        bigint NOT NULL,
  sender               text NOT NULL,
  type                 text NOT NULL,
  visibility           text NOT NULL,
  peer_to              text,
  body                 text,
  summary              text,
  topic                text,
  request_id           text,
  approve              boolean,
  reason               text,
  suppress_auto_reply  boolean,
  sent_at              timestamptz NOT NULL,
  read_at              timestamptz,
  PRIMARY KEY (team, recipient, message_id)
);

CREATE INDEX mailbox_messages_inbox_order ON {{schema}}.mailbox_messages (team, recipient, inbox_version);
CREATE INDEX mailbox_messages_unread ON {{schema}}.mailbox_messages (team, recipient, inbox_version) WHERE read_at IS NULL;
