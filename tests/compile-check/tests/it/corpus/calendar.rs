//! The Google Calendar port (`tests/corpus/calendar.yaml`) served by a small in-memory
//! calendar account, held to its generated gauntlet.
//!
//! The account holds what the spec's examples assume: calendars `primary` (Work) and
//! `team@example.com` (Team); on primary the standup ev0standup01 on 2026-12-07 09:00-09:15
//! in Room 4 with notes "Daily sync"; on Team the quarterly planning ev0planning1 on
//! 2026-12-10 and the offsite ev0offsite01 on 2026-12-14 with two guests and the private
//! extended property project=apollo. Calendars are found
//! by id or by name (Work, Team); the one connected account is `work`. Times are read as UTC
//! (the fake has no time zone database); an event time may be a date (all day) or the
//! original's JSON object with its own zone. Extended properties are kept on the event and
//! filter lists as the original's `privateExtendedProperty`/`sharedExtendedProperty` do; a
//! new event with the title and times of one on its calendar is refused as a duplicate
//! unless `allowDuplicates`, and overlapping events come back as `conflicts`.

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
        event_type: None,
        hangout_link: None,
        extended_properties: None,
    }
}

fn guest(email: &str) -> Attendee {
    Attendee {
        email: email.into(),
        display_name: None,
        optional: None,
        response_status: Some(ResponseStatus::NeedsAction),
    }
}

/// A time as UTC text with an offset (`2026-12-07T09:00:00Z`).
fn utc(t: &str) -> String {
    let at = instant(t);
    if t.len() > 19 && (t.ends_with('Z') || t[19..].starts_with(['+', '-'])) {
        t.to_owned()
    } else {
        format!("{at}Z")
    }
}

/// Date and time to the second, a date's midnight for an all-day time: what the fake compares.
fn instant(t: &str) -> String {
    if t.len() == 10 {
        format!("{t}T00:00:00")
    } else {
        t[..19].to_owned()
    }
}

/// An event time as the account keeps it: the original's JSON object form
/// (`{"dateTime": ..., "timeZone": ...}` or `{"date": ...}`) gives its date and time (the
/// fake reads every zone as UTC); a date or a date and time is kept as written.
fn event_time(t: &str) -> Result<String, ToolError> {
    let bad = || -> ToolError {
        CalendarError::InvalidEventTime {
            value: t.to_owned(),
        }
        .into()
    };
    if !t.starts_with('{') {
        return if is_when(t) {
            Ok(t.to_owned())
        } else {
            Err(bad())
        };
    }
    let v: serde_json::Value = serde_json::from_str(t).map_err(|_| bad())?;
    let inner = v
        .get("dateTime")
        .or_else(|| v.get("date"))
        .and_then(|x| x.as_str())
        .ok_or_else(bad)?;
    if is_when(inner) {
        Ok(inner.to_owned())
    } else {
        Err(bad())
    }
}

/// Whether `t` is a date (`2026-12-07`) or a date and time to the second, with or without
/// an offset (`2026-12-07T10:00:00`, `…Z`, `…+01:00`): the forms the spec's `When` allows.
fn is_when(t: &str) -> bool {
    if !t.is_ascii() {
        return false;
    }
    // `d` a digit, other bytes as written.
    let fits = |s: &str, shape: &str| {
        s.len() == shape.len()
            && s.bytes().zip(shape.bytes()).all(|(c, m)| {
                if m == b'd' {
                    c.is_ascii_digit()
                } else {
                    c == m
                }
            })
    };
    let (date, rest) = t.split_at(t.len().min(10));
    if !fits(date, "dddd-dd-dd") {
        return false;
    }
    if rest.is_empty() {
        return true;
    }
    let (time, offset) = rest.split_at(rest.len().min(9));
    fits(time, "Tdd:dd:dd")
        && (offset.is_empty() || offset == "Z" || fits(&offset.replace('-', "+"), "+dd:dd"))
}

/// The one connected account's nickname, and the person's address (a guest of the offsite).
const ACCOUNT: &str = "work";
const PERSON: &str = "ada@example.com";

fn account(name: Option<&str>) -> Result<(), ToolError> {
    match name {
        Some(n) if n != ACCOUNT => Err(CalendarError::AccountNotFound { account: n.into() }.into()),
        _ => Ok(()),
    }
}

fn accounts(names: &Option<Accounts>) -> Result<(), ToolError> {
    match names {
        None => Ok(()),
        Some(Accounts::One(n)) => account(Some(n)),
        Some(Accounts::Several(ns)) => ns.iter().try_for_each(|n| account(Some(n))),
    }
}

/// The calendars a `calendarId` names: one id or name, an array, or (as the original takes)
/// a JSON string holding an array; each once, in the order given.
fn calendar_list(ids: CalendarIds) -> Result<Vec<String>, ToolError> {
    let list = match ids {
        CalendarIds::Several(ids) => ids,
        CalendarIds::One(id) if id.starts_with('[') => serde_json::from_str::<Vec<String>>(&id)
            .map_err(|_| -> ToolError {
                CalendarError::CalendarNotFound {
                    calendar_id: id.clone(),
                }
                .into()
            })?,
        CalendarIds::One(id) => vec![id],
    };
    let mut once = Vec::new();
    for id in list {
        if !once.contains(&id) {
            once.push(id);
        }
    }
    Ok(once)
}

/// Whether `event` has every `key=value` of both filters among its extended properties.
fn has_properties(
    event: &Event,
    private: &Option<PropertyFilter>,
    shared: &Option<PropertyFilter>,
) -> bool {
    let kept = event.extended_properties.as_ref();
    let holds = |filter: &Option<PropertyFilter>, shared: bool| {
        let map = kept.and_then(|p| {
            if shared {
                p.shared.as_ref()
            } else {
                p.private.as_ref()
            }
        });
        filter.iter().flatten().all(|pair| {
            pair.split_once('=')
                .is_some_and(|(k, v)| map.is_some_and(|m| m.get(k).is_some_and(|x| x == v)))
        })
    };
    holds(private, false) && holds(shared, true)
}

/// A video call's link for a request to create one (the fake makes a Meet link from the id).
fn meet_link(conference: &Option<ConferenceData>) -> Option<String> {
    conference.as_ref().map(|c| {
        let id: String = c
            .create_request
            .request_id
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .take(10)
            .collect();
        format!("https://meet.google.com/{}", id.to_lowercase())
    })
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
fn updated(before: &Event, input: UpdateEventInput) -> Result<Event, ToolError> {
    let mut after = before.clone();
    if let Some(s) = input.summary {
        after.summary = s;
    }
    input.description.apply_to(&mut after.description);
    input.location.apply_to(&mut after.location);
    input.color_id.apply_to(&mut after.color_id);
    if let Some(s) = input.start {
        after.start = event_time(&s)?;
    }
    if let Some(e) = input.end {
        after.end = event_time(&e)?;
    }
    range(&after.start, &after.end)?;
    if let Some(list) = input.attendees {
        after.attendees = list.iter().map(|a| guest(&a.email)).collect();
    }
    if let Some(r) = input.recurrence {
        after.recurrence = r;
    }
    if let Some(p) = input.extended_properties {
        after.extended_properties = Some(p);
    }
    if let Some(link) = meet_link(&input.conference_data) {
        after.hangout_link = Some(link);
    }
    Ok(after)
}

/// Each calendar's id and name.
const CALENDARS: [(&str, &str); 2] = [("primary", "Work"), ("team@example.com", "Team")];

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
        offsite.extended_properties = Some(ExtendedProperties {
            private: Some(BTreeMap::from([(
                "project".to_owned(),
                "apollo".to_owned(),
            )])),
            shared: None,
        });
        Account {
            events: Arc::new(Mutex::new(vec![standup, planning, offsite])),
            next: AtomicU64::new(1),
        }
    }

    /// The id of the calendar with this id or name.
    fn calendar(&self, id: &str) -> Result<String, ToolError> {
        CALENDARS
            .iter()
            .find(|(cid, name)| *cid == id || *name == id)
            .map(|(cid, _)| (*cid).to_owned())
            .ok_or_else(|| {
                CalendarError::CalendarNotFound {
                    calendar_id: id.into(),
                }
                .into()
            })
    }

    fn get(&self, calendar: &str, id: &str) -> Result<Event, ToolError> {
        let calendar = self.calendar(calendar)?;
        let calendar = calendar.as_str();
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
        let calendars = calendars
            .iter()
            .map(|c| self.calendar(c))
            .collect::<Result<Vec<_>, _>>()?;
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

    /// The events of `calendars` (the event's own when none are given) that overlap `event`,
    /// itself left out.
    fn conflicts(
        &self,
        event: &Event,
        calendars: Option<&[String]>,
    ) -> Result<Vec<Conflict>, ToolError> {
        let own = [event.calendar_id.clone()];
        let found = self.between(
            calendars.unwrap_or(&own),
            Some(&event.start),
            Some(&event.end),
        )?;
        Ok(found
            .into_iter()
            .filter(|e| !(e.id == event.id && e.calendar_id == event.calendar_id))
            .map(|e| Conflict {
                id: e.id,
                calendar_id: e.calendar_id,
                summary: e.summary,
            })
            .collect())
    }

    /// A new event's calendar id, start and end, checked: its account and calendar exist, it
    /// ends after it starts, and it repeats no event unless duplicates are allowed.
    fn new_event(&self, input: &CreateEventInput) -> Result<(String, String, String), ToolError> {
        account(input.account.as_deref())?;
        let calendar = self.calendar(&input.calendar_id)?;
        let (start, end) = (event_time(&input.start)?, event_time(&input.end)?);
        range(&start, &end)?;
        if !input.allow_duplicates
            && let Some(same) = self.duplicate(&calendar, &input.summary, &start, &end)
        {
            return Err(CalendarError::DuplicateEvent {
                calendar_id: calendar,
                event_id: same.id,
            }
            .into());
        }
        Ok((calendar, start, end))
    }

    /// The events of a batch as they would be made: each with the batch's defaults for what
    /// it leaves out, checked (account, calendar, times); no duplicate check, as in the
    /// original. With each, whether its guests are emailed.
    fn batch(&self, input: &CreateEventsInput) -> Result<Vec<(Event, bool)>, ToolError> {
        account(input.account.as_deref())?;
        let mut made = Vec::new();
        for (n, e) in input.events.iter().enumerate() {
            account(e.account.as_deref())?;
            let calendar = self.calendar(e.calendar_id.as_deref().unwrap_or(&input.calendar_id))?;
            let (start, end) = (event_time(&e.start)?, event_time(&e.end)?);
            range(&start, &end)?;
            let id = format!("ev0batch{n:04}");
            let mut created = event(&id, &calendar, &e.summary, &start, &end);
            created.description = e.description.clone();
            created.location = e.location.clone();
            created.color_id = e.color_id.clone();
            created.recurrence = e.recurrence.clone().unwrap_or_default();
            created.hangout_link = meet_link(&e.conference_data);
            created.attendees = e
                .attendees
                .iter()
                .flatten()
                .map(|a| Attendee {
                    response_status: Some(a.response_status.unwrap_or(ResponseStatus::NeedsAction)),
                    ..a.clone()
                })
                .collect();
            let emailed = !matches!(
                e.send_updates.or(input.send_updates),
                Some(SendUpdates::None)
            );
            made.push((created, emailed));
        }
        Ok(made)
    }

    /// The event on `calendar` with this title and these times, if there is one.
    fn duplicate(&self, calendar: &str, summary: &str, start: &str, end: &str) -> Option<Event> {
        self.events
            .lock()
            .unwrap()
            .iter()
            .find(|e| {
                e.calendar_id == calendar
                    && e.summary == summary
                    && instant(&e.start) == instant(start)
                    && instant(&e.end) == instant(end)
            })
            .cloned()
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
    async fn list_calendars(
        &self,
        input: ListCalendarsInput,
    ) -> Result<ListCalendarsOutput, ToolError> {
        accounts(&input.account)?;
        let entry = |id: &str, summary: &str, role, primary| ListCalendarsOutputCalendarsItem {
            id: id.into(),
            summary: summary.into(),
            time_zone: "UTC".into(),
            access_role: role,
            primary,
        };
        Ok(ListCalendarsOutput {
            calendars: vec![
                entry(
                    "primary",
                    "Work",
                    ListCalendarsOutputCalendarsItemAccessRole::Owner,
                    true,
                ),
                entry(
                    "team@example.com",
                    "Team",
                    ListCalendarsOutputCalendarsItemAccessRole::Writer,
                    false,
                ),
            ],
        })
    }

    async fn list_events(&self, input: ListEventsInput) -> Result<ListEventsOutput, ToolError> {
        accounts(&input.account)?;
        let calendars = calendar_list(input.calendar_id)?;
        let mut events = self.between(
            &calendars,
            input.time_min.as_deref(),
            input.time_max.as_deref(),
        )?;
        events.retain(|e| {
            has_properties(
                e,
                &input.private_extended_property,
                &input.shared_extended_property,
            )
        });
        // `fields` asks for more than the defaults; every field this account has is sent anyway.
        Ok(ListEventsOutput { events })
    }

    async fn search_events(
        &self,
        input: SearchEventsInput,
    ) -> Result<SearchEventsOutput, ToolError> {
        accounts(&input.account)?;
        let words = input.query.to_lowercase();
        let events = self
            .between(
                &calendar_list(input.calendar_id)?,
                Some(&input.time_min),
                Some(&input.time_max),
            )?
            .into_iter()
            .filter(|e| {
                has_properties(
                    e,
                    &input.private_extended_property,
                    &input.shared_extended_property,
                )
            })
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
        Ok(SearchEventsOutput { events })
    }

    async fn get_event(&self, input: GetEventInput) -> Result<GetEventOutput, ToolError> {
        account(input.account.as_deref())?;
        // `fields` asks for more than the defaults; every field this account has is sent anyway.
        Ok(GetEventOutput {
            event: self.get(&input.calendar_id, &input.event_id)?,
        })
    }

    async fn respond_to_event(
        &self,
        input: RespondToEventInput,
        remote: Remote,
    ) -> Result<RespondToEventOutput, ToolError> {
        account(input.account.as_deref())?;
        let event = self.get(&input.calendar_id, &input.event_id)?;
        let Some(me) = event.attendees.iter().find(|a| a.email == PERSON) else {
            return Err(CalendarError::NotInvited {
                event_id: input.event_id,
            }
            .into());
        };
        let previous = me.response_status.unwrap_or(ResponseStatus::NeedsAction);
        let (calendar, id, answer) = (event.calendar_id.clone(), event.id.clone(), input.response);
        self.change(remote.work(), move |events| {
            let guest = events
                .iter_mut()
                .filter(|e| e.calendar_id == calendar && e.id == id)
                .flat_map(|e| e.attendees.iter_mut())
                .find(|a| a.email == PERSON);
            if let Some(guest) = guest {
                guest.response_status = Some(answer);
            }
        });
        Ok(RespondToEventOutput {
            calendar_id: event.calendar_id,
            event_id: event.id,
            response: input.response,
            previous,
        })
    }

    async fn list_colors(&self, input: ListColorsInput) -> Result<ListColorsOutput, ToolError> {
        account(input.account.as_deref())?;
        let event = BTreeMap::from([
            ("1".to_owned(), color("#a4bdfc")),
            ("5".to_owned(), color("#fbd75b")),
            ("11".to_owned(), color("#dc2127")),
        ]);
        let calendar = BTreeMap::from([("1".to_owned(), color("#ac725e"))]);
        Ok(ListColorsOutput { event, calendar })
    }

    async fn preview_create_event(
        &self,
        input: CreateEventInput,
    ) -> Result<CreateEventPreview, ToolError> {
        self.new_event(&input)?;
        let invitations = match input.send_updates {
            Some(SendUpdates::None) => 0,
            _ => input.attendees.as_ref().map_or(0, Vec::len) as u64,
        };
        Ok(CreateEventPreview {
            title: input.summary.clone(),
            invitations,
            summary: Some(format!(
                "Add \"{}\" and email {invitations} guests.",
                input.summary
            )),
        })
    }

    async fn create_event(
        &self,
        input: CreateEventInput,
        _preview: CreateEventPreview,
        remote: Remote,
    ) -> Result<CreateEventOutput, ToolError> {
        let (calendar, start, end) = self.new_event(&input)?;
        let id = input
            .event_id
            .unwrap_or_else(|| format!("ev0made{:06}", self.next.fetch_add(1, Ordering::SeqCst)));
        let mut created = event(&id, &calendar, &input.summary, &start, &end);
        created.description = input.description;
        created.location = input.location;
        created.color_id = input.color_id;
        created.recurrence = input.recurrence.unwrap_or_default();
        created.attendees = input
            .attendees
            .unwrap_or_default()
            .into_iter()
            .map(|a| Attendee {
                email: a.email,
                display_name: a.display_name,
                optional: a.optional,
                response_status: Some(a.response_status.unwrap_or(ResponseStatus::NeedsAction)),
            })
            .collect();
        created.event_type = input.event_type;
        created.extended_properties = input.extended_properties;
        created.hangout_link = meet_link(&input.conference_data);
        let conflicts = self.conflicts(&created, input.calendars_to_check.as_deref())?;
        let stored = created.clone();
        self.change(remote.work(), move |events| events.push(stored));
        Ok(CreateEventOutput {
            event: created,
            conflicts,
        })
    }

    async fn preview_create_events(
        &self,
        input: CreateEventsInput,
    ) -> Result<CreateEventsPreview, ToolError> {
        let made = self.batch(&input)?;
        let invitations: u64 = made
            .iter()
            .filter(|(_, emailed)| *emailed)
            .map(|(e, _)| e.attendees.len() as u64)
            .sum();
        let count = made.len() as u64;
        Ok(CreateEventsPreview {
            count,
            invitations,
            summary: Some(format!(
                "Add {count} events and email {invitations} guests."
            )),
        })
    }

    async fn create_events(
        &self,
        input: CreateEventsInput,
        _preview: CreateEventsPreview,
        remote: Remote,
    ) -> Result<CreateEventsOutput, ToolError> {
        // Ids unique to this call: the store's counter, then the event's place in the batch.
        let call = self.next.fetch_add(1, Ordering::SeqCst);
        let events: Vec<Event> = self
            .batch(&input)?
            .into_iter()
            .enumerate()
            .map(|(n, (mut e, _))| {
                e.id = format!("ev0made{call:04}b{n:02}");
                e
            })
            .collect();
        let stored = events.clone();
        self.change(remote.work(), move |all| all.extend(stored));
        Ok(CreateEventsOutput { events })
    }

    async fn preview_update_event(
        &self,
        input: UpdateEventInput,
    ) -> Result<UpdateEventPreview, ToolError> {
        account(input.account.as_deref())?;
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
            ("colorId", before.color_id != after.color_id),
            ("recurrence", before.recurrence != after.recurrence),
            (
                "extendedProperties",
                before.extended_properties != after.extended_properties,
            ),
            ("conferenceData", before.hangout_link != after.hangout_link),
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
        Ok(UpdateEventPreview {
            summary: Some(format!(
                "Change {} of \"{}\".",
                changes.join(", "),
                before.summary
            )),
            changes,
            notified,
        })
    }

    async fn update_event(
        &self,
        input: UpdateEventInput,
        _preview: UpdateEventPreview,
        remote: Remote,
    ) -> Result<UpdateEventOutput, ToolError> {
        account(input.account.as_deref())?;
        let before = self.get(&input.calendar_id, &input.event_id)?;
        let retimed = input.start.is_some() || input.end.is_some();
        let check = input.check_conflicts.unwrap_or(retimed);
        let calendars = input.calendars_to_check.clone();
        let after = updated(&before, input)?;
        let conflicts = if check {
            self.conflicts(&after, calendars.as_deref())?
        } else {
            Vec::new()
        };
        let stored = after.clone();
        self.change(remote.work(), move |events| {
            if let Some(e) = events
                .iter_mut()
                .find(|e| e.calendar_id == stored.calendar_id && e.id == stored.id)
            {
                *e = stored;
            }
        });
        Ok(UpdateEventOutput {
            event: after,
            conflicts,
            previous: UpdateEventOutputPrevious {
                summary: before.summary,
                description: before.description,
                location: before.location,
                start: before.start,
                end: before.end,
            },
        })
    }

    async fn preview_delete_event(
        &self,
        input: DeleteEventInput,
    ) -> Result<DeleteEventPreview, ToolError> {
        account(input.account.as_deref())?;
        let e = self.get(&input.calendar_id, &input.event_id)?;
        let notified = match input.send_updates {
            SendUpdates::None => 0,
            _ => e.attendees.len() as u64,
        };
        Ok(DeleteEventPreview {
            title: e.summary.clone(),
            notified,
            summary: Some(format!(
                "Delete \"{}\" and email {notified} guests.",
                e.summary
            )),
        })
    }

    async fn delete_event(
        &self,
        input: DeleteEventInput,
        _preview: DeleteEventPreview,
        remote: Remote,
    ) -> Result<DeleteEventOutput, ToolError> {
        account(input.account.as_deref())?;
        let calendar = self.get(&input.calendar_id, &input.event_id)?.calendar_id;
        let id = input.event_id.clone();
        self.change(remote.work(), move |events| {
            events.retain(|e| !(e.calendar_id == calendar && e.id == id));
        });
        Ok(DeleteEventOutput {
            event_id: input.event_id,
        })
    }

    async fn get_freebusy(&self, input: GetFreebusyInput) -> Result<GetFreebusyOutput, ToolError> {
        accounts(&input.account)?;
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
            calendars.insert(c.id.clone(), GetFreebusyOutputCalendarsValue { busy });
        }
        Ok(GetFreebusyOutput { calendars })
    }

    async fn get_current_time(
        &self,
        input: GetCurrentTimeInput,
    ) -> Result<GetCurrentTimeOutput, ToolError> {
        account(input.account.as_deref())?;
        Ok(GetCurrentTimeOutput {
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
