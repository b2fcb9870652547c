//! The in-memory tickets implementation the gauntlet runs against, and the bugs it can be
//! told to have.
//!
//! `Desk::demo()` holds what the tickets spec's examples assume: 23 tickets T-1000..T-1022
//! titled "login loop case {i}", open unless `i % 3 == 0` (then closed), so 15 open ones
//! match "login" and T-1001 is open. `Desk::with_bug(bug)` is the same desk with one
//! deliberate bug, each breaking one promise of the spec.

// Shared by two test crates; each uses a part of it.
#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use toolspec_compile_check::tickets::*;
use toolspec_runtime::ToolError;
use toolspec_runtime::engine::Runtime;
use toolspec_runtime::engine::glue::{Page, Window};
use toolspec_runtime::store::Work;

/// One deliberate bug.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bug {
    /// Search pages by a fixed 10 items, whatever `limit` the call passed.
    IgnoresLimit,
    /// Every page after the first skips one item.
    SkipsItems,
    /// Every page after the first repeats the last item of the page before.
    RepeatsItems,
    /// Search reports one more match than there are.
    WrongTotal,
    /// The preview of tickets_create already opens the ticket.
    PreviewWrites,
    /// tickets_create opens a ticket with another title than the preview showed.
    ApplyDiffersFromPreview,
    /// tickets_update_status reports the new status as the previous one, so its undo call
    /// sets the new status again.
    UndoDoesNotRestore,
    /// tickets_update_status always reports `open` as the previous status: true of the
    /// fixture's ticket, so its undo restores the fixture's state, but not once the ticket
    /// changed.
    UndoIgnoresPriorState,
    /// tickets_get returns a customer email that is not an email address.
    BreaksOutputSchema,
    /// tickets_get reports an unknown ticket as an internal error instead of not_found.
    NotFoundIsInternal,
    /// The writes change the tickets at once, not when their unit of work commits.
    WritesOutsideUnitOfWork,
    /// tickets_create marks its title as being opened while it waits for the mailer and
    /// unmarks it after, in code a cancelled call never reaches: the title stays marked, and
    /// the same creation is refused ever after.
    HoldsPastCancel,
}

impl Bug {
    /// Every bug.
    pub const ALL: [Bug; 12] = [
        Bug::IgnoresLimit,
        Bug::SkipsItems,
        Bug::RepeatsItems,
        Bug::WrongTotal,
        Bug::PreviewWrites,
        Bug::ApplyDiffersFromPreview,
        Bug::UndoDoesNotRestore,
        Bug::UndoIgnoresPriorState,
        Bug::BreaksOutputSchema,
        Bug::NotFoundIsInternal,
        Bug::WritesOutsideUnitOfWork,
        Bug::HoldsPastCancel,
    ];
}

/// An in-memory support desk. Its writes change the tickets in their unit of work's
/// `on_commit`, so a call that does not commit changes nothing.
pub struct Desk {
    tickets: Arc<Mutex<Vec<Ticket>>>,
    next: AtomicUsize,
    bug: Option<Bug>,
    /// Titles being opened right now (the bug `HoldsPastCancel` leaves them here).
    opening: Mutex<Vec<String>>,
}

/// Waits once, as a call to a mailer would: the point where a cancelled call stops.
fn mailer() -> impl std::future::Future<Output = ()> {
    let mut waited = false;
    std::future::poll_fn(move |cx| {
        if waited {
            return std::task::Poll::Ready(());
        }
        waited = true;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    })
}

impl Desk {
    /// The desk the spec's examples describe.
    pub fn demo() -> Self {
        let tickets = (0..23)
            .map(|i| Ticket {
                ticket_id: format!("T-{}", 1000 + i),
                title: format!("login loop case {i}"),
                status: if i % 3 == 0 {
                    TicketStatus::Closed
                } else {
                    TicketStatus::Open
                },
                customer_email: format!("customer{i}@example.com"),
            })
            .collect();
        Desk {
            tickets: Arc::new(Mutex::new(tickets)),
            next: AtomicUsize::new(23),
            bug: None,
            opening: Mutex::new(Vec::new()),
        }
    }

    /// The demo desk with one bug.
    pub fn with_bug(bug: Bug) -> Self {
        Desk {
            bug: Some(bug),
            ..Desk::demo()
        }
    }

    fn has(&self, bug: Bug) -> bool {
        self.bug == Some(bug)
    }

    /// A new ticket, added to the desk now (`work: None`) or when `work` commits.
    fn open(&self, input: &TicketsCreateInput, title: String, work: Option<&Work>) -> Ticket {
        let ticket = Ticket {
            ticket_id: format!("T-{}", 1000 + self.next.fetch_add(1, Ordering::SeqCst)),
            title,
            status: TicketStatus::Open,
            customer_email: input.customer_email.clone(),
        };
        self.change(work, {
            let ticket = ticket.clone();
            move |tickets| tickets.push(ticket)
        });
        ticket
    }

    /// Applies `change` to the tickets when `work` commits, or at once without a unit of
    /// work (and with the bug that writes outside it).
    fn change(&self, work: Option<&Work>, change: impl FnOnce(&mut Vec<Ticket>) + Send + 'static) {
        let tickets = Arc::clone(&self.tickets);
        let apply = move || change(&mut tickets.lock().unwrap());
        match work {
            Some(work) if !self.has(Bug::WritesOutsideUnitOfWork) => work.on_commit(apply),
            _ => apply(),
        }
    }
}

impl TicketsTools for Desk {
    async fn tickets_search(
        &self,
        input: TicketsSearchInput,
        window: Window,
    ) -> Result<Page<TicketsSearchOutput>, ToolError> {
        let tickets = self.tickets.lock().unwrap();
        let query = input.query.to_lowercase();
        let hits: Vec<&Ticket> = tickets
            .iter()
            .filter(|t| t.title.to_lowercase().contains(&query))
            .filter(|t| input.status.is_none_or(|s| t.status == s))
            .collect();
        let mut skip = window.skip();
        if skip > 0 && self.has(Bug::SkipsItems) {
            skip += 1;
        }
        if skip > 0 && self.has(Bug::RepeatsItems) {
            skip -= 1;
        }
        let take = if self.has(Bug::IgnoresLimit) {
            10
        } else {
            window.take()
        };
        let page: Vec<Ticket> = hits
            .iter()
            .skip(skip)
            .take(take)
            .map(|t| (*t).clone())
            .collect();
        let more = skip + page.len() < hits.len();
        let mut total = hits.len() as u64;
        if self.has(Bug::WrongTotal) {
            total += 1;
        }
        // Pages by the offset the runtime still passes beside the keyset position, which is
        // where the injected bugs act.
        Ok(Page::new(TicketsSearchOutput { tickets: page }, total).with_more(more))
    }

    async fn tickets_export(
        &self,
        input: TicketsExportInput,
    ) -> Result<TicketsExportOutput, ToolError> {
        let tickets = self.tickets.lock().unwrap();
        let chosen: Vec<&Ticket> = tickets
            .iter()
            .filter(|t| input.status.is_none_or(|s| t.status == s))
            .collect();
        let mut csv = String::from("ticket_id,title,status");
        for t in &chosen {
            csv.push_str(&format!(
                "\n{},{},{}",
                t.ticket_id,
                t.title,
                t.status.as_str()
            ));
        }
        Ok(TicketsExportOutput {
            csv,
            exported: chosen.len() as i64,
        })
    }
    async fn tickets_get(&self, input: TicketsGetInput) -> Result<TicketsGetOutput, ToolError> {
        let tickets = self.tickets.lock().unwrap();
        let Some(found) = tickets.iter().find(|t| t.ticket_id == input.ticket_id) else {
            if self.has(Bug::NotFoundIsInternal) {
                return Err(ToolError::internal(format!(
                    "no row for {}",
                    input.ticket_id
                )));
            }
            return Err(TicketsError::NotFound {
                ticket_id: input.ticket_id,
            }
            .into());
        };
        let mut ticket = found.clone();
        if self.has(Bug::BreaksOutputSchema) {
            ticket.customer_email = "customer at example dot com".into();
        }
        Ok(TicketsGetOutput { ticket })
    }

    async fn preview_tickets_create(
        &self,
        input: TicketsCreateInput,
    ) -> Result<TicketsCreatePreview, ToolError> {
        if self.has(Bug::PreviewWrites) {
            self.open(&input, input.title.clone(), None);
        }
        Ok(TicketsCreatePreview {
            summary: Some(format!("Would open \"{}\" and email its id.", input.title)),
            title: input.title,
            customer_email: input.customer_email,
        })
    }

    async fn tickets_create(
        &self,
        input: TicketsCreateInput,
        preview: TicketsCreatePreview,
        work: Work,
    ) -> Result<TicketsCreateOutput, ToolError> {
        let title = if self.has(Bug::ApplyDiffersFromPreview) {
            format!("{} (escalated)", preview.title)
        } else {
            preview.title
        };
        if self.has(Bug::HoldsPastCancel) {
            let mut opening = self.opening.lock().unwrap();
            if opening.contains(&title) {
                return Err(ToolError::new(
                    "already_opening",
                    format!("A ticket titled {title:?} is being opened."),
                    true,
                    serde_json::Value::Null,
                ));
            }
            opening.push(title.clone());
        }
        mailer().await;
        if self.has(Bug::HoldsPastCancel) {
            self.opening.lock().unwrap().retain(|t| *t != title);
        }
        Ok(TicketsCreateOutput {
            ticket: self.open(&input, title, Some(&work)),
        })
    }

    async fn tickets_update_status(
        &self,
        input: TicketsUpdateStatusInput,
        work: Work,
    ) -> Result<TicketsUpdateStatusOutput, ToolError> {
        let found = {
            let tickets = self.tickets.lock().unwrap();
            tickets
                .iter()
                .find(|t| t.ticket_id == input.ticket_id)
                .cloned()
        };
        let Some(mut ticket) = found else {
            return Err(TicketsError::NotFound {
                ticket_id: input.ticket_id,
            }
            .into());
        };
        let mut previous_status = ticket.status;
        ticket.status = input.status;
        if self.has(Bug::UndoDoesNotRestore) {
            previous_status = input.status;
        }
        if self.has(Bug::UndoIgnoresPriorState) {
            previous_status = TicketStatus::Open;
        }
        let (id, status) = (input.ticket_id, input.status);
        self.change(Some(&work), move |tickets| {
            if let Some(t) = tickets.iter_mut().find(|t| t.ticket_id == id) {
                t.status = status;
            }
        });
        Ok(TicketsUpdateStatusOutput {
            ticket,
            previous_status,
        })
    }
}

/// The gauntlet's fixture: a fresh demo desk served with the runtime it is handed.
pub fn fixture(runtime: Runtime) -> TicketsServer<Desk> {
    TicketsServer::new(Desk::demo(), runtime)
}
