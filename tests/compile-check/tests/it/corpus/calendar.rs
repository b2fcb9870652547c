//! The Google Calendar port (`tests/corpus/calendar.yaml`) served by a small in-memory
//! calendar account, held to its generated gauntlet.
//!
//! The account holds what the spec's examples assume: calendars `primary` (Work) and
//! `team@example.com` (Team); on primary the standup ev0standup01 on 2026-12-07 09:00-09:15
//! in Room 4 with notes "Daily sync"; on Team the quarterly planning ev0planning1 on
//! 2026-12-10 and the offsite ev0offsite01 on 2026-12-14 with two guests. Times are read as
//! UTC (the fake has no time zone database).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use toolspec_compile_check::corpus::calendar::*;
use toolspec_runtime::ToolError;
use toolspec_runtime::engine::Runtime;
use toolspec_runtime::store::{Remote, Work};

type Events = Arc<Mutex<Vec<Event>>>;

/// An in-memory calendar account. Writes change it when their unit of work commits.
pub struct Account {
    events: Events,
    next: AtomicU64,
}

fn event(id: &str, calendar: &str, summary: &str, start: &str, end: &str) -> Event {
    Event {
        id: id.into(),
        calendar_id: calendar.into(),
        summary: summary.into(),
        description: None,
        location: None,
        start: start.into(),
        end: end.into(),
        status: EventStatus::Confirmed,
        attendees: Vec::new(),
        color_id: None,
        recurrence: Vec::new(),
    }
}

fn guest(email: &str) -> Attendee {
    Attendee {
        email: email.into(),
        response_status: Some(AttendeeResponseStatus::NeedsAction),
    }
}

/// A time as UTC text with an offset (`2026-12-07T09:00:00Z`).
fn utc(t: &str) -> String {
    if t.ends_with('Z') || t[19..].starts_with(['+', '-']) {
        t.to_owned()
    } else {
        format!("{t}Z")
    }
}

/// The first 19 characters (date and time to the second): what the fake compares.
fn instant(t: &str) -> &str {
    &t[..19]
}

fn range(start: &str, end: &str) -> Result<(), ToolError> {
    if instant(end) <= instant(start) {
        return Err(CalendarError::InvalidTimeRange {
            start: start.into(),
            end: end.into(),
        }
        .into());
    }
    Ok(())
}

/// `before` with the changes of `input`, checked.
fn updated(before: &Event, input: CalendarUpdateEventInput) -> Result<Event, ToolError> {
    let mut after = before.clone();
    if let Some(s) = input.summary {
        after.summary = s;
    }
    input.description.apply_to(&mut after.description);
    input.location.apply_to(&mut after.location);
    input.color_id.apply_to(&mut after.color_id);
    if let Some(s) = input.start {
        after.start = s;
    }
    if let Some(e) = input.end {
        after.end = e;
    }
    range(&after.start, &after.end)?;
    if let Some(list) = input.attendees {
        after.attendees = list.iter().map(|a| guest(&a.email)).collect();
    }
    if let Some(r) = input.recurrence {
        after.recurrence = r;
    }
    Ok(after)
}

const CALENDARS: [&str; 2] = ["primary", "team@example.com"];

impl Account {
    /// The account the examples describe.
    pub fn demo() -> Self {
        let mut standup = event(
            "ev0standup01",
            "primary",
            "Standup",
            "2026-12-07T09:00:00",
            "2026-12-07T09:15:00",
        );
        standup.description = Some("Daily sync".into());
        standup.location = Some("Room 4".into());
        let planning = event(
            "ev0planning1",
            "team@example.com",
            "Quarterly planning",
            "2026-12-10T13:00:00",
            "2026-12-10T15:00:00",
        );
        let mut offsite = event(
            "ev0offsite01",
            "team@example.com",
            "Offsite",
            "2026-12-14T09:00:00",
            "2026-12-14T17:00:00",
        );
        offsite.attendees = vec![guest("grace@example.com"), guest("ada@example.com")];
        Account {
            events: Arc::new(Mutex::new(vec![standup, planning, offsite])),
            next: AtomicU64::new(1),
        }
    }

    fn calendar(&self, id: &str) -> Result<(), ToolError> {
        if CALENDARS.contains(&id) {
            Ok(())
        } else {
            Err(CalendarError::CalendarNotFound {
                calendar_id: id.into(),
            }
            .into())
        }
    }

    fn get(&self, calendar: &str, id: &str) -> Result<Event, ToolError> {
        self.calendar(calendar)?;
        self.events
            .lock()
            .unwrap()
            .iter()
            .find(|e| e.calendar_id == calendar && e.id == id)
            .cloned()
            .ok_or_else(|| {
                CalendarError::EventNotFound {
                    calendar_id: calendar.into(),
                    event_id: id.into(),
                }
                .into()
            })
    }

    /// The events of `calendars` overlapping the window, in start order.
    fn between(
        &self,
        calendars: &[String],
        min: Option<&str>,
        max: Option<&str>,
    ) -> Result<Vec<Event>, ToolError> {
        for c in calendars {
            self.calendar(c)?;
        }
        if let (Some(a), Some(b)) = (min, max) {
            range(a, b)?;
        }
        let mut found: Vec<Event> = self
            .events
            .lock()
            .unwrap()
            .iter()
            .filter(|e| calendars.contains(&e.calendar_id))
            .filter(|e| min.is_none_or(|m| instant(&e.end) > instant(m)))
            .filter(|e| max.is_none_or(|m| instant(&e.start) < instant(m)))
            .cloned()
            .collect();
        found.sort_by(|a, b| a.start.cmp(&b.start).then(a.id.cmp(&b.id)));
        Ok(found)
    }

    /// Runs `change` on the events when `work` commits.
    fn change(&self, work: &Work, change: impl FnOnce(&mut Vec<Event>) + Send + 'static) {
        let events = Arc::clone(&self.events);
        work.on_commit(move || change(&mut events.lock().unwrap()));
    }
}

fn color(background: &str) -> Color {
    Color {
        background: background.into(),
        foreground: "#1d1d1d".into(),
    }
}

impl CalendarTools for Account {
    async fn calendar_list_calendars(
        &self,
        _input: CalendarListCalendarsInput,
    ) -> Result<CalendarListCalendarsOutput, ToolError> {
        let entry =
            |id: &str, summary: &str, role, primary| CalendarListCalendarsOutputCalendarsItem {
                id: id.into(),
                summary: summary.into(),
                time_zone: "UTC".into(),
                access_role: role,
                primary,
            };
        Ok(CalendarListCalendarsOutput {
            calendars: vec![
                entry(
                    "primary",
                    "Work",
                    CalendarListCalendarsOutputCalendarsItemAccessRole::Owner,
                    true,
                ),
                entry(
                    "team@example.com",
                    "Team",
                    CalendarListCalendarsOutputCalendarsItemAccessRole::Writer,
                    false,
                ),
            ],
        })
    }

    async fn calendar_list_events(
        &self,
        input: CalendarListEventsInput,
    ) -> Result<CalendarListEventsOutput, ToolError> {
        let calendars = match input.calendar_id {
            CalendarListEventsInputCalendarId::One(id) => vec![id],
            CalendarListEventsInputCalendarId::Several(ids) => ids,
        };
        let events = self.between(
            &calendars,
            input.time_min.as_deref(),
            input.time_max.as_deref(),
        )?;
        Ok(CalendarListEventsOutput { events })
    }

    async fn calendar_search_events(
        &self,
        input: CalendarSearchEventsInput,
    ) -> Result<CalendarSearchEventsOutput, ToolError> {
        let words = input.query.to_lowercase();
        let events = self
            .between(
                &[input.calendar_id],
                Some(&input.time_min),
                Some(&input.time_max),
            )?
            .into_iter()
            .filter(|e| {
                let text = format!(
                    "{} {} {} {}",
                    e.summary,
                    e.description.as_deref().unwrap_or(""),
                    e.location.as_deref().unwrap_or(""),
                    e.attendees
                        .iter()
                        .map(|a| a.email.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                );
                text.to_lowercase().contains(&words)
            })
            .collect();
        Ok(CalendarSearchEventsOutput { events })
    }

    async fn calendar_list_colors(
        &self,
        _input: CalendarListColorsInput,
    ) -> Result<CalendarListColorsOutput, ToolError> {
        let event = BTreeMap::from([
            ("1".to_owned(), color("#a4bdfc")),
            ("5".to_owned(), color("#fbd75b")),
            ("11".to_owned(), color("#dc2127")),
        ]);
        let calendar = BTreeMap::from([("1".to_owned(), color("#ac725e"))]);
        Ok(CalendarListColorsOutput { event, calendar })
    }

    async fn preview_calendar_create_event(
        &self,
        input: CalendarCreateEventInput,
    ) -> Result<CalendarCreateEventPreview, ToolError> {
        self.calendar(&input.calendar_id)?;
        range(&input.start, &input.end)?;
        let invitations = input.attendees.as_ref().map_or(0, Vec::len) as u64;
        Ok(CalendarCreateEventPreview {
            title: input.summary.clone(),
            invitations,
            summary: Some(format!(
                "Add \"{}\" and email {invitations} guests.",
                input.summary
            )),
        })
    }

    async fn calendar_create_event(
        &self,
        input: CalendarCreateEventInput,
        _preview: CalendarCreateEventPreview,
        remote: Remote,
    ) -> Result<CalendarCreateEventOutput, ToolError> {
        self.calendar(&input.calendar_id)?;
        range(&input.start, &input.end)?;
        let id = format!("ev0made{:06}", self.next.fetch_add(1, Ordering::SeqCst));
        let mut created = event(
            &id,
            &input.calendar_id,
            &input.summary,
            &input.start,
            &input.end,
        );
        created.description = input.description;
        created.location = input.location;
        created.color_id = input.color_id;
        created.recurrence = input.recurrence.unwrap_or_default();
        created.attendees = input
            .attendees
            .unwrap_or_default()
            .iter()
            .map(|a| guest(&a.email))
            .collect();
        let stored = created.clone();
        self.change(remote.work(), move |events| events.push(stored));
        Ok(CalendarCreateEventOutput { event: created })
    }

    async fn preview_calendar_update_event(
        &self,
        input: CalendarUpdateEventInput,
    ) -> Result<CalendarUpdateEventPreview, ToolError> {
        let before = self.get(&input.calendar_id, &input.event_id)?;
        let after = updated(&before, input.clone())?;
        let mut changes = Vec::new();
        let pairs = [
            ("summary", before.summary != after.summary),
            ("description", before.description != after.description),
            ("location", before.location != after.location),
            ("start", before.start != after.start),
            ("end", before.end != after.end),
            ("attendees", before.attendees != after.attendees),
            ("color_id", before.color_id != after.color_id),
            ("recurrence", before.recurrence != after.recurrence),
        ];
        for (name, changed) in pairs {
            if changed {
                changes.push(name.to_owned());
            }
        }
        let notified = match input.send_updates {
            SendUpdates::None => 0,
            _ => after.attendees.len() as u64,
        };
        Ok(CalendarUpdateEventPreview {
            summary: Some(format!(
                "Change {} of \"{}\".",
                changes.join(", "),
                before.summary
            )),
            changes,
            notified,
        })
    }

    async fn calendar_update_event(
        &self,
        input: CalendarUpdateEventInput,
        _preview: CalendarUpdateEventPreview,
        remote: Remote,
    ) -> Result<CalendarUpdateEventOutput, ToolError> {
        let before = self.get(&input.calendar_id, &input.event_id)?;
        let after = updated(&before, input)?;
        let stored = after.clone();
        self.change(remote.work(), move |events| {
            if let Some(e) = events
                .iter_mut()
                .find(|e| e.calendar_id == stored.calendar_id && e.id == stored.id)
            {
                *e = stored;
            }
        });
        Ok(CalendarUpdateEventOutput {
            event: after,
            previous: CalendarUpdateEventOutputPrevious {
                summary: before.summary,
                description: before.description,
                location: before.location,
                start: before.start,
                end: before.end,
            },
        })
    }

    async fn preview_calendar_delete_event(
        &self,
        input: CalendarDeleteEventInput,
    ) -> Result<CalendarDeleteEventPreview, ToolError> {
        let e = self.get(&input.calendar_id, &input.event_id)?;
        let notified = match input.send_updates {
            SendUpdates::None => 0,
            _ => e.attendees.len() as u64,
        };
        Ok(CalendarDeleteEventPreview {
            title: e.summary.clone(),
            notified,
            summary: Some(format!(
                "Delete \"{}\" and email {notified} guests.",
                e.summary
            )),
        })
    }

    async fn calendar_delete_event(
        &self,
        input: CalendarDeleteEventInput,
        _preview: CalendarDeleteEventPreview,
        remote: Remote,
    ) -> Result<CalendarDeleteEventOutput, ToolError> {
        self.get(&input.calendar_id, &input.event_id)?;
        let (calendar, id) = (input.calendar_id, input.event_id.clone());
        self.change(remote.work(), move |events| {
            events.retain(|e| !(e.calendar_id == calendar && e.id == id));
        });
        Ok(CalendarDeleteEventOutput {
            event_id: input.event_id,
        })
    }

    async fn calendar_get_freebusy(
        &self,
        input: CalendarGetFreebusyInput,
    ) -> Result<CalendarGetFreebusyOutput, ToolError> {
        range(&input.time_min, &input.time_max)?;
        let mut calendars = BTreeMap::new();
        for c in &input.calendars {
            let busy = self
                .between(
                    std::slice::from_ref(&c.id),
                    Some(&input.time_min),
                    Some(&input.time_max),
                )?
                .into_iter()
                .map(|e| Busy {
                    start: utc(&e.start),
                    end: utc(&e.end),
                })
                .collect();
            calendars.insert(
                c.id.clone(),
                CalendarGetFreebusyOutputCalendarsValue { busy },
            );
        }
        Ok(CalendarGetFreebusyOutput { calendars })
    }

    async fn calendar_get_current_time(
        &self,
        input: CalendarGetCurrentTimeInput,
    ) -> Result<CalendarGetCurrentTimeOutput, ToolError> {
        Ok(CalendarGetCurrentTimeOutput {
            utc: "2026-12-01T09:00:00Z".into(),
            time_zone: input.time_zone.unwrap_or_else(|| "UTC".into()),
            local: "2026-12-01T09:00:00".into(),
        })
    }
}

/// The server under test, around a fresh demo account.
pub fn fixture(runtime: Runtime) -> CalendarServer<Account> {
    CalendarServer::new(Account::demo(), runtime)
}

include!("../../../../corpus/generated/calendar/calendar_gauntlet.rs");

calendar_gauntlet!(fixture);

/// The gauntlet's facts (the spec's tools and examples), for the MCP test.
pub(super) static FACTS: &::toolspec_runtime::gauntlet::Facts = &CALENDAR_GAUNTLET;
