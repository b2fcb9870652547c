//! The gauntlet of `chat.yaml` holds a remote write to the promise its `effect` makes: after
//! an attempt whose outcome was lost (a commit that failed after the method ran, the state a
//! crash between the service's change and the commit leaves), the retry must not make the
//! change again where the read tools can see it.
//!
//! The chat service here is a map in memory that dedupes posts on the key it is sent, as
//! the real one does; the implementation with a bug sends a fresh key on every attempt.

use std::sync::{Arc, Mutex};

use remote_fixture::chat::*;
use toolspec_runtime::engine::Runtime;
use toolspec_runtime::gauntlet::{Fixture, Gauntlet, Report};
use toolspec_runtime::prelude::*;

include!(concat!(env!("OUT_DIR"), "/chat_gauntlet.rs"));

/// What the service holds: posts by the key they were sent with, reminders by reference.
#[derive(Default)]
struct Service {
    messages: Vec<(String, String, String, String)>,
    reminders: Vec<(String, String, String)>,
    pages: usize,
}

/// The tools against the in-memory service; `forwards_key: false` is the bug.
struct MemoryChat {
    service: Arc<Mutex<Service>>,
    forwards_key: bool,
}

impl ChatTools for MemoryChat {
    async fn chat_messages_list(
        &self,
        input: ChatMessagesListInput,
    ) -> Result<ChatMessagesListOutput, ToolError> {
        let service = self.service.lock().unwrap();
        let messages = service
            .messages
            .iter()
            .rev()
            .filter(|(_, _, channel, _)| *channel == input.channel)
            .take(20)
            .map(|(_, id, _, text)| ChatMessagesListOutputMessagesItem {
                message_id: id.clone(),
                text: text.clone(),
            })
            .collect();
        Ok(ChatMessagesListOutput { messages })
    }

    async fn chat_message_post(
        &self,
        input: ChatMessagePostInput,
        remote: Remote,
    ) -> Result<ChatMessagePostOutput, ToolError> {
        let mut service = self.service.lock().unwrap();
        let key = if self.forwards_key {
            remote.key().to_owned()
        } else {
            format!("fresh-{}", service.messages.len())
        };
        if let Some((_, id, channel, _)) = service.messages.iter().find(|m| m.0 == key) {
            return Ok(ChatMessagePostOutput {
                message_id: id.clone(),
                channel: channel.clone(),
            });
        }
        let id = format!("M-{}", service.messages.len() + 1);
        service
            .messages
            .push((key, id.clone(), input.channel.clone(), input.text));
        Ok(ChatMessagePostOutput {
            message_id: id,
            channel: input.channel,
        })
    }

    async fn chat_reminder_create(
        &self,
        input: ChatReminderCreateInput,
        remote: Remote,
    ) -> Result<ChatReminderCreateOutput, ToolError> {
        let mut service = self.service.lock().unwrap();
        if remote.earlier_attempt()
            && let Some((_, id, at)) = service.reminders.iter().find(|r| r.0 == remote.key())
        {
            return Ok(ChatReminderCreateOutput {
                reminder_id: id.clone(),
                at: at.clone(),
            });
        }
        let id = format!("R-{}", service.reminders.len() + 1);
        service
            .reminders
            .push((remote.key().to_owned(), id.clone(), input.at.clone()));
        Ok(ChatReminderCreateOutput {
            reminder_id: id,
            at: input.at,
        })
    }

    async fn chat_page_send(
        &self,
        _input: ChatPageSendInput,
        _remote: Remote,
    ) -> Result<ChatPageSendOutput, ToolError> {
        let mut service = self.service.lock().unwrap();
        service.pages += 1;
        Ok(ChatPageSendOutput {
            page_id: format!("P-{}", service.pages),
        })
    }
}

fn run(forwards_key: bool) -> Report {
    let fixture = move |runtime: Runtime| {
        let tools = MemoryChat {
            service: Arc::default(),
            forwards_key,
        };
        ChatServer::new(tools, runtime)
    };
    Gauntlet::new(&CHAT_GAUNTLET, Fixture::new(fixture)).run_all()
}

const RETRY_CHECK: &str =
    "chat_message_post::a_retry_after_a_lost_outcome_does_not_repeat_the_change";

#[test]
fn a_service_sent_the_forwarded_key_passes_every_check() {
    let report = run(true);
    assert!(report.passed(), "{report}");
    assert!(
        CHAT_GAUNTLET.checks.iter().any(|c| c.name == RETRY_CHECK),
        "the remote retry check is generated"
    );
    // The unprotected tool is held to its warning instead.
    assert!(
        CHAT_GAUNTLET
            .checks
            .iter()
            .any(|c| c.name == "chat_page_send::a_lost_outcome_says_a_retry_may_repeat_the_change")
    );
}

#[test]
fn a_post_that_does_not_forward_the_key_fails_the_retry_check() {
    let report = run(false);
    let failure = report
        .failure(RETRY_CHECK)
        .unwrap_or_else(|| panic!("the retry check should fail: {report}"));
    let text = failure.to_string();
    assert!(text.contains("remote.key()"), "{text}");
}
