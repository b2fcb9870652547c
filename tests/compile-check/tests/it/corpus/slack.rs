//! The Slack port (`tests/corpus/slack.yaml`) served by a small in-memory workspace, held
//! to its generated gauntlet (`tests/corpus/generated/slack/slack_gauntlet.rs`).
//!
//! The workspace holds what the spec's examples assume: channels general (C0123ABCD) and
//! random (C0789IJKL) and 3 more; in general, the standup message 1733050000.000100 with
//! one reply and two later messages; members ada (U0456EFGH, with a custom field) and
//! grace (U0789MNOP) and 4 more.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use toolspec_compile_check::corpus::slack::*;
use toolspec_runtime::ToolError;
use toolspec_runtime::engine::Runtime;
use toolspec_runtime::engine::glue::{Page, Window};
use toolspec_runtime::store::{Remote, Work};

const GENERAL: &str = "C0123ABCD";
const STANDUP: &str = "1733050000.000100";

/// One channel with its messages, oldest first.
#[derive(Clone)]
struct Room {
    channel: Channel,
    messages: Vec<Message>,
}

/// An in-memory Slack workspace. Writes change it when their unit of work commits.
pub struct Workspace {
    rooms: Arc<Mutex<Vec<Room>>>,
    /// The reactions the bot added: (channel, message, emoji).
    reacted: Arc<Mutex<Vec<(String, String, String)>>>,
    members: Vec<SlackGetUsersOutputMembersItem>,
    clock: AtomicU64,
}

fn message(ts: &str, user: &str, text: &str, thread: Option<&str>) -> Message {
    Message {
        ts: ts.into(),
        user: user.into(),
        text: text.into(),
        thread_ts: thread.map(str::to_owned),
        reply_count: 0,
        reactions: BTreeMap::new(),
    }
}

impl Workspace {
    /// The workspace the examples describe.
    pub fn demo() -> Self {
        let channel = |id: &str, name: &str, topic: Option<&str>| Channel {
            id: id.into(),
            name: name.into(),
            topic: topic.map(str::to_owned),
            num_members: 42,
        };
        let mut standup = message(
            STANDUP,
            "U0456EFGH",
            "Standup in five minutes",
            Some(STANDUP),
        );
        standup.reply_count = 1;
        standup.reactions.insert("thumbsup".into(), 2);
        let general = Room {
            channel: channel(GENERAL, "general", Some("Company-wide announcements")),
            messages: vec![
                standup,
                message("1733050050.000150", "U0789MNOP", "Joining", Some(STANDUP)),
                message("1733050100.000200", "U0789MNOP", "Lunch at noon", None),
                message("1733050200.000300", "U0456EFGH", "Deploy at three", None),
            ],
        };
        let mut rooms = vec![
            general,
            Room {
                channel: channel("C0789IJKL", "random", None),
                messages: Vec::new(),
            },
        ];
        for i in 0..3 {
            rooms.push(Room {
                channel: channel(&format!("C1000000{i}"), &format!("team-{i}"), None),
                messages: Vec::new(),
            });
        }
        let member = |id: &str, name: &str, real: &str| SlackGetUsersOutputMembersItem {
            id: id.into(),
            name: name.into(),
            real_name: real.into(),
            tz: Some("Europe/London".into()),
        };
        let mut members = vec![
            member("U0456EFGH", "ada", "Ada Lovelace"),
            member("U0789MNOP", "grace", "Grace Hopper"),
        ];
        for i in 0..4 {
            members.push(member(
                &format!("U2000000{i}"),
                &format!("user{i}"),
                &format!("User {i}"),
            ));
        }
        Workspace {
            rooms: Arc::new(Mutex::new(rooms)),
            reacted: Arc::default(),
            members,
            clock: AtomicU64::new(1_733_060_000),
        }
    }

    fn room(&self, channel_id: &str) -> Result<Room, ToolError> {
        self.rooms
            .lock()
            .unwrap()
            .iter()
            .find(|r| r.channel.id == channel_id)
            .cloned()
            .ok_or_else(|| {
                SlackError::ChannelNotFound {
                    channel_id: channel_id.into(),
                }
                .into()
            })
    }

    fn find(&self, channel_id: &str, ts: &str) -> Result<Message, ToolError> {
        self.room(channel_id)?
            .messages
            .into_iter()
            .find(|m| m.ts == ts)
            .ok_or_else(|| {
                SlackError::MessageNotFound {
                    channel_id: channel_id.into(),
                    ts: ts.into(),
                }
                .into()
            })
    }

    /// Posts `text` (in `thread`), when `work` commits; returns the new timestamp.
    fn post(&self, channel_id: &str, text: &str, thread: Option<&str>, work: &Work) -> String {
        let ts = format!("{}.000000", self.clock.fetch_add(1, Ordering::SeqCst));
        let msg = message(&ts, "U0BOT00000", text, thread);
        let rooms = Arc::clone(&self.rooms);
        let (channel, thread) = (channel_id.to_owned(), thread.map(str::to_owned));
        work.on_commit(move || {
            let mut rooms = rooms.lock().unwrap();
            if let Some(room) = rooms.iter_mut().find(|r| r.channel.id == channel) {
                if let Some(parent) =
                    thread.and_then(|t| room.messages.iter_mut().find(|m| m.ts == t))
                {
                    parent.reply_count += 1;
                }
                room.messages.push(msg);
            }
        });
        ts
    }
}

/// `items[offset..offset+limit]` and whether more follow, as a backend without counts
/// answers (it fetches one more than asked).
fn window<T: Clone>(items: &[T], w: Window) -> (Vec<T>, bool) {
    let page: Vec<T> = items
        .iter()
        .skip(w.skip())
        .take(w.take().saturating_add(1))
        .cloned()
        .collect();
    let more = page.len() > w.take();
    (page.into_iter().take(w.take()).collect(), more)
}

impl SlackTools for Workspace {
    async fn slack_list_channels(
        &self,
        _input: SlackListChannelsInput,
        w: Window,
    ) -> Result<Page<SlackListChannelsOutput>, ToolError> {
        let all: Vec<Channel> = self
            .rooms
            .lock()
            .unwrap()
            .iter()
            .map(|r| r.channel.clone())
            .collect();
        let (channels, more) = window(&all, w);
        Ok(Page::more(SlackListChannelsOutput { channels }, more))
    }

    async fn slack_post_message(
        &self,
        input: SlackPostMessageInput,
        remote: Remote,
    ) -> Result<SlackPostMessageOutput, ToolError> {
        self.room(&input.channel_id)?;
        let ts = self.post(&input.channel_id, &input.text, None, remote.work());
        Ok(SlackPostMessageOutput {
            channel: input.channel_id,
            ts,
        })
    }

    async fn slack_reply_to_thread(
        &self,
        input: SlackReplyToThreadInput,
        remote: Remote,
    ) -> Result<SlackReplyToThreadOutput, ToolError> {
        self.find(&input.channel_id, &input.thread_ts)?;
        let ts = self.post(
            &input.channel_id,
            &input.text,
            Some(&input.thread_ts),
            remote.work(),
        );
        Ok(SlackReplyToThreadOutput {
            channel: input.channel_id,
            ts,
        })
    }

    async fn slack_add_reaction(
        &self,
        input: SlackAddReactionInput,
        remote: Remote,
    ) -> Result<SlackAddReactionOutput, ToolError> {
        self.find(&input.channel_id, &input.timestamp)?;
        let mine = (
            input.channel_id.clone(),
            input.timestamp.clone(),
            input.reaction.clone(),
        );
        if self.reacted.lock().unwrap().contains(&mine) {
            return Err(SlackError::AlreadyReacted {
                reaction: input.reaction,
            }
            .into());
        }
        let (rooms, reacted) = (Arc::clone(&self.rooms), Arc::clone(&self.reacted));
        remote.work().on_commit(move || {
            let mut rooms = rooms.lock().unwrap();
            let found = rooms
                .iter_mut()
                .find(|r| r.channel.id == mine.0)
                .and_then(|r| r.messages.iter_mut().find(|m| m.ts == mine.1));
            if let Some(m) = found {
                *m.reactions.entry(mine.2.clone()).or_insert(0) += 1;
            }
            reacted.lock().unwrap().push(mine);
        });
        Ok(SlackAddReactionOutput {
            channel_id: input.channel_id,
            ts: input.timestamp,
            reaction: input.reaction,
        })
    }

    async fn slack_get_channel_history(
        &self,
        input: SlackGetChannelHistoryInput,
        w: Window,
    ) -> Result<Page<SlackGetChannelHistoryOutput>, ToolError> {
        let mut newest_first = self.room(&input.channel_id)?.messages;
        newest_first.reverse();
        let (messages, more) = window(&newest_first, w);
        Ok(Page::more(SlackGetChannelHistoryOutput { messages }, more))
    }

    async fn slack_get_thread_replies(
        &self,
        input: SlackGetThreadRepliesInput,
    ) -> Result<SlackGetThreadRepliesOutput, ToolError> {
        self.find(&input.channel_id, &input.thread_ts)?;
        let messages = self
            .room(&input.channel_id)?
            .messages
            .into_iter()
            .filter(|m| m.thread_ts.as_deref() == Some(input.thread_ts.as_str()))
            .collect();
        Ok(SlackGetThreadRepliesOutput { messages })
    }

    async fn slack_get_users(
        &self,
        _input: SlackGetUsersInput,
        w: Window,
    ) -> Result<Page<SlackGetUsersOutput>, ToolError> {
        let (members, more) = window(&self.members, w);
        Ok(Page::more(SlackGetUsersOutput { members }, more))
    }

    async fn slack_get_user_profile(
        &self,
        input: SlackGetUserProfileInput,
    ) -> Result<SlackGetUserProfileOutput, ToolError> {
        let m = self
            .members
            .iter()
            .find(|m| m.id == input.user_id)
            .ok_or_else(|| SlackError::UserNotFound {
                user_id: input.user_id.clone(),
            })?;
        let mut fields = BTreeMap::new();
        if m.name == "ada" {
            fields.insert(
                "X0TEAM0001".to_owned(),
                SlackGetUserProfileOutputProfileFieldsValue {
                    value: "Platform team".into(),
                    alt: None,
                },
            );
        }
        Ok(SlackGetUserProfileOutput {
            profile: SlackGetUserProfileOutputProfile {
                real_name: m.real_name.clone(),
                display_name: m.name.clone(),
                title: (m.name == "ada").then(|| "Engineer".to_owned()),
                email: Some(format!("{}@example.com", m.name)),
                status_text: None,
                status_emoji: None,
                fields,
            },
        })
    }
}

/// The server under test, around a fresh demo workspace.
pub fn fixture(runtime: Runtime) -> SlackServer<Workspace> {
    SlackServer::new(Workspace::demo(), runtime)
}

include!("../../../../corpus/generated/slack/slack_gauntlet.rs");

slack_gauntlet!(fixture);

/// The gauntlet's facts (the spec's tools and examples), for the MCP test.
pub(super) static FACTS: &::toolspec_runtime::gauntlet::Facts = &SLACK_GAUNTLET;
