//! A server whose writes are made at a chat service it does not own, one tool for each way a
//! retry can be kept from repeating such a change (`chat.yaml`):
//!
//! - `chat_message_post` (`effect: remote_keyed`): the service dedupes posts on the
//!   `Idempotency-Key` header, which carries [`Remote::key`];
//! - `chat_reminder_create` (`effect: remote_lookup`): each reminder is stored with
//!   [`Remote::key`] as its reference, and a retry told of an earlier attempt
//!   ([`Remote::earlier_attempt`]) looks it up before creating one;
//! - `chat_page_send` (`effect: remote_unprotected`): the pager gateway has neither, so a
//!   retry after a crash pages twice, as the tool's description warns.
//!
//! The end-to-end test `tests/e2e/test_remote_effects.py` runs the release binary against a
//! real HTTP service that counts effects, kills it with SIGKILL between the service's change
//! and the commit, and retries.

use serde_json::{Value, json};
use toolspec_runtime::prelude::*;

/// The generated layer of `chat.yaml`.
#[allow(missing_docs)]
pub mod chat {
    include!(concat!(env!("OUT_DIR"), "/chat.rs"));
}

use chat::*;

/// The tools, served against the chat service at `api` (`http://127.0.0.1:PORT`).
#[derive(Debug, Clone)]
pub struct Chat {
    api: String,
    http: reqwest::Client,
}

impl Chat {
    /// The tools against the chat service at `api`.
    pub fn new(api: impl Into<String>) -> Self {
        Chat {
            api: api.into().trim_end_matches('/').to_owned(),
            http: reqwest::Client::new(),
        }
    }

    /// Sends one request and reads its JSON answer: `None` for a 404, an error the agent
    /// can act on for anything else that is not a success.
    async fn send(&self, request: reqwest::RequestBuilder) -> Result<Option<Value>, ToolError> {
        let response = request.send().await.map_err(|e| {
            // No answer: the service may or may not have made the change. Said as such;
            // the tool's effect decides whether a retry is safe.
            ToolError::new(
                "chat_unreachable",
                format!(
                    "The chat service did not answer ({e}); it may or may not have made the change."
                ),
                true,
                json!({}),
            )
        })?;
        let status = response.status();
        if status == reqwest::StatusCode::NOT_FOUND {
            return Ok(None);
        }
        if !status.is_success() {
            return Err(ToolError::new(
                "chat_refused",
                format!("The chat service refused the request with HTTP {status}."),
                status.is_server_error(),
                json!({ "status": status.as_u16() }),
            ));
        }
        response
            .json()
            .await
            .map(Some)
            .map_err(|e| ToolError::internal(format!("the chat service's answer: {e}")))
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.api)
    }
}

/// A string field of the service's answer.
fn field(v: &Value, name: &str) -> Result<String, ToolError> {
    v.get(name)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| ToolError::internal(format!("the chat service's answer has no {name}")))
}

impl ChatTools for Chat {
    async fn chat_messages_list(
        &self,
        input: ChatMessagesListInput,
    ) -> Result<ChatMessagesListOutput, ToolError> {
        // A channel name is `#` and `[a-z0-9-]`: only the `#` needs escaping in a query.
        let channel = input.channel.replace('#', "%23");
        let listed = self
            .send(
                self.http
                    .get(self.url(&format!("/messages?channel={channel}"))),
            )
            .await?
            .ok_or_else(|| ToolError::internal("the chat service has no /messages"))?;
        let messages = listed
            .get("messages")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .take(20)
            .map(|m| {
                Ok(ChatMessagesListOutputMessagesItem {
                    message_id: field(m, "id")?,
                    text: field(m, "text")?,
                })
            })
            .collect::<Result<_, ToolError>>()?;
        Ok(ChatMessagesListOutput { messages })
    }

    async fn chat_message_post(
        &self,
        input: ChatMessagePostInput,
        remote: Remote,
    ) -> Result<ChatMessagePostOutput, ToolError> {
        let posted = self
            .send(
                self.http
                    .post(self.url("/messages"))
                    .header("Idempotency-Key", remote.key())
                    .json(&json!({ "channel": input.channel, "text": input.text })),
            )
            .await?
            .ok_or_else(|| ToolError::internal("the chat service has no /messages"))?;
        Ok(ChatMessagePostOutput {
            message_id: field(&posted, "id")?,
            channel: field(&posted, "channel")?,
        })
    }

    // ANCHOR: reminder
    async fn chat_reminder_create(
        &self,
        input: ChatReminderCreateInput,
        remote: Remote,
    ) -> Result<ChatReminderCreateOutput, ToolError> {
        let reminder = |v: Value| -> Result<ChatReminderCreateOutput, ToolError> {
            Ok(ChatReminderCreateOutput {
                reminder_id: field(&v, "id")?,
                at: field(&v, "at")?,
            })
        };
        // An earlier attempt of this very call may have created it before its answer was
        // lost: find it by the reference it was stored with instead of creating another.
        if remote.earlier_attempt()
            && let Some(found) = self
                .send(
                    // The key is `tsk_` and hex digits: safe in a query as it is.
                    self.http
                        .get(self.url(&format!("/reminders?reference={}", remote.key()))),
                )
                .await?
        {
            return reminder(found);
        }
        let created = self
            .send(self.http.post(self.url("/reminders")).json(&json!({
                "person": input.person,
                "text": input.text,
                "at": input.at,
                "reference": remote.key(),
            })))
            .await?
            .ok_or_else(|| ToolError::internal("the chat service has no /reminders"))?;
        reminder(created)
    }
    // ANCHOR_END: reminder

    async fn chat_page_send(
        &self,
        input: ChatPageSendInput,
        _remote: Remote,
    ) -> Result<ChatPageSendOutput, ToolError> {
        // The gateway takes no key and keeps no reference: nothing here can tell a retry.
        let sent = self
            .send(
                self.http
                    .post(self.url("/pages"))
                    .json(&json!({ "person": input.person, "text": input.text })),
            )
            .await?
            .ok_or_else(|| ToolError::internal("the chat service has no /pages"))?;
        Ok(ChatPageSendOutput {
            page_id: field(&sent, "id")?,
        })
    }
}
