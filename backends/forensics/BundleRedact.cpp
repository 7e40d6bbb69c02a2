// Redaction of an incident bundle (DESIGN.md §7 "Redaction"): secrets in request / response
// texts are replaced by a marker holding their SHA-256, byte-exact everywhere else.
#include "Bundle.h"
#include "BundleRedactor.h"

#include "BundleRedactText.h"

#include <QHash>
#include <QtConcurrent/QtConcurrentMap>

#include <memory>
#include <vector>

#include <algorithm>
#include <numeric>

namespace triage {

using namespace redaction; // the text redaction, BundleRedactText.h

namespace {

/// Calls `f(text, where, column)` for every text of `k` that can hold a store's JSON or a value
/// taken from it (DESIGN.md §7 "Redaction"): the record's result snapshot and every column, the
/// tickets' columns, the intent attempts' request, response, error and states, the audit rows'
/// states, evidence, reason and detail, the compensations' request, response, error and reason,
/// their attempts' response preview and error, the timeline's summaries and the warnings.
template <typename F>
void forEachKeyText(KeyDetail &k, F &&f)
{
    const QString key = QStringLiteral("keys[%1]").arg(k.idemKey);
    const auto at = [&key](const char *section, qsizetype index, const QString &field) { return Where{&key, section, index, field}; };
    if (k.record) {
        f(&k.record->resultSnapshot, at("record", -1, QStringLiteral("result_snapshot")), QStringLiteral("result_snapshot"));
        for (auto &[name, text] : k.record->allColumns)
            if (!k.record->nullColumns.contains(name))
                f(&text, at("record", -1, QStringLiteral("all_columns.") + name), name);
    }
    for (qsizetype i = 0; i < k.tickets.size(); ++i) {
        TicketRow &t = k.tickets[i];
        f(&t.title, at("tickets", i, QStringLiteral("title")), QStringLiteral("title"));
        f(&t.payload, at("tickets", i, QStringLiteral("payload")), QStringLiteral("payload"));
    }
    for (qsizetype i = 0; i < k.attempts.size(); ++i) {
        IntentAttempt &a = k.attempts[i];
        f(&a.request, at("attempts", i, QStringLiteral("request")), QStringLiteral("request"));
        f(&a.response, at("attempts", i, QStringLiteral("response")), QStringLiteral("response"));
        f(&a.error, at("attempts", i, QStringLiteral("error")), QStringLiteral("error"));
        f(&a.stateBefore, at("attempts", i, QStringLiteral("state_before")), QStringLiteral("state_before"));
        f(&a.stateAfter, at("attempts", i, QStringLiteral("state_after")), QStringLiteral("state_after"));
    }
    for (qsizetype i = 0; i < k.audit.size(); ++i) {
        AuditEntry &a = k.audit[i];
        f(&a.fromState, at("audit", i, QStringLiteral("from_state")), QStringLiteral("from_state"));
        f(&a.toState, at("audit", i, QStringLiteral("to_state")), QStringLiteral("to_state"));
        f(&a.evidence, at("audit", i, QStringLiteral("evidence")), QStringLiteral("evidence"));
        f(&a.reason, at("audit", i, QStringLiteral("reason")), QStringLiteral("reason"));
        f(&a.detail, at("audit", i, QStringLiteral("detail")), QStringLiteral("detail"));
    }
    for (qsizetype i = 0; i < k.compensations.size(); ++i) {
        CompensationRow &c = k.compensations[i];
        f(&c.request, at("compensations", i, QStringLiteral("request")), QStringLiteral("request"));
        f(&c.response, at("compensations", i, QStringLiteral("response")), QStringLiteral("response"));
        f(&c.lastError, at("compensations", i, QStringLiteral("last_error")), QStringLiteral("last_error"));
        f(&c.reason, at("compensations", i, QStringLiteral("reason")), QStringLiteral("reason"));
    }
    for (qsizetype i = 0; i < k.compensationAttempts.size(); ++i) {
        f(&k.compensationAttempts[i].responsePreview, at("compensation_attempts", i, QStringLiteral("response_preview")),
          QStringLiteral("response_preview"));
        f(&k.compensationAttempts[i].error, at("compensation_attempts", i, QStringLiteral("error")), QStringLiteral("error"));
    }
    for (qsizetype i = 0; i < k.timeline.size(); ++i)
        f(&k.timeline[i].summary, at("timeline", i, QStringLiteral("summary")), QString());
    for (qsizetype i = 0; i < k.warnings.size(); ++i)
        f(&k.warnings[i], at("warnings", i, QString()), QString());
}

} // namespace

/// The redactor's state: the rules compiled once, and each batch of keys with its own lists.
struct BundleRedactor::State {
    RedactionRules rules;
    Redactor r;
    /// One redactKeys() call: its keys' redaction lists and values, filled on the pool.
    struct Batch {
        KeyDetail *keys = nullptr;
        QVector<QVector<Redaction>> lists;
        QVector<KeySecrets> secrets;
        QList<qsizetype> order;
        QFuture<void> done;
    };
    std::vector<std::unique_ptr<Batch>> batches;
};

BundleRedactor::BundleRedactor(const RedactionRules &rules)
    : m(std::make_unique<State>())
{
    m->rules = rules;
    if (!rules.enabled)
        return;
    Redactor &r = m->r;
    for (const QString &f : rules.fields)
        r.names.insert(f.toLower());
    for (const char *header : {"authorization", "cookie", "set-cookie"})
        r.names.insert(QString::fromLatin1(header));
    r.nameList = QStringList(r.names.cbegin(), r.names.cend());
    r.freeText = FreeTextSecrets(r.names); // one compiled pattern for the whole export
    r.namesPlain = std::all_of(r.names.cbegin(), r.names.cend(), [](const QString &n) {
        return !n.isEmpty() && std::all_of(n.cbegin(), n.cend(), [](QChar c) {
                   return c.unicode() > 0x20 && c.unicode() < 0x7f && c != QLatin1Char('"') && c != QLatin1Char('\\')
                       && c != QLatin1Char('/');
               });
    });
}

BundleRedactor::~BundleRedactor()
{
    waitForKeys();
}

void BundleRedactor::redactKeys(QVector<KeyDetail> *keys)
{
    if (!m->rules.enabled || keys->isEmpty())
        return;
    // Each key on the global pool's threads, into its own lists: the JSON inside every stored
    // text, then the values found there looked for again in all the key's texts (a truncated
    // body, a summary built from a title). finish() joins the lists in bundle order, so the
    // bundle is the same as redacted serially.
    auto batch = std::make_unique<State::Batch>();
    State::Batch *b = batch.get();
    b->keys = keys->data(); // detached once here, never by the threads
    b->lists.resize(keys->size());
    b->secrets.resize(keys->size());
    b->order.resize(keys->size());
    std::iota(b->order.begin(), b->order.end(), 0);
    const Redactor *r = &m->r;
    b->done = QtConcurrent::map(b->order, [r, b](qsizetype n) {
        Redactor kr = *r;
        kr.found = &b->lists[n];
        kr.secrets = &b->secrets[n];
        KeySecrets &secrets = b->secrets[n];
        forEachKeyText(b->keys[n], [&kr](auto *text, const Where &where, const QString &column) { kr.apply(text, where, column); });
        if (secrets.list.isEmpty())
            return;
        secrets.build();
        forEachKeyText(b->keys[n], [&kr, &secrets](auto *text, const Where &where, const QString &) { kr.substitute(text, where, secrets); });
    });
    m->batches.push_back(std::move(batch));
}

void BundleRedactor::waitForKeys()
{
    for (const auto &b : m->batches)
        b->done.waitForFinished();
}

void redactBundle(IncidentBundle *bundle, const RedactionRules &rules)
{
    BundleRedactor redactor(rules);
    redactor.redactKeys(&bundle->keys);
    redactor.finish(bundle);
}

void BundleRedactor::finish(IncidentBundle *bundle)
{
    waitForKeys();
    bundle->redactionRules = m->rules;
    bundle->redactions.clear();
    if (!m->rules.enabled)
        return;
    const Redactor &r = m->r;
    QVector<QVector<Redaction>> perKey;
    QVector<KeySecrets> keySecrets;
    perKey.reserve(bundle->keys.size());
    keySecrets.reserve(bundle->keys.size());
    for (const auto &b : m->batches)
        for (qsizetype i = 0; i < b->order.size(); ++i) {
            perKey << std::move(b->lists[i]);
            keySecrets << std::move(b->secrets[i]);
        }
    m->batches.clear();
    Q_ASSERT(keySecrets.size() == bundle->keys.size());
    keySecrets.resize(bundle->keys.size()); // (a caller breaking the contract loses substitution, never memory safety)
    perKey.resize(bundle->keys.size());

    // The events (and the pins' events): the JSON in each detail, then the values redacted in
    // the event's key (a ticket's title in "title (now OPEN)"), in blocks on the pool.
    QHash<QString, qsizetype> keyIndex;
    for (qsizetype i = 0; i < bundle->keys.size(); ++i)
        keyIndex.insert(bundle->keys[i].idemKey, i);
    // An event's texts: the JSON in its detail, then (when the rules name the column: a whole
    // actor under --redact-field actor) its actor and statuses, then the values redacted in the
    // event's key in all of them. `path(field)` gives "events[3].detail".
    const auto redactEvent = [&keyIndex, &keySecrets](const Redactor &er, WindowEvent *e, const auto &path) {
        struct Text {
            QString *text;
            const char *field;
        };
        const Text texts[] = {{&e->detail, "detail"}, {&e->actor, "actor"}, {&e->status, "status"}, {&e->statusNow, "status_now"}};
        for (const Text &t : texts)
            er.apply(t.text, [&] { return path(t.field); }, t.text == &e->detail ? QString() : QString::fromLatin1(t.field));
        const auto k = keyIndex.constFind(e->idemKey);
        if (k != keyIndex.constEnd() && !keySecrets[*k].list.isEmpty())
            for (const Text &t : texts)
                er.substitute(t.text, [&] { return path(t.field); }, keySecrets[*k]);
    };
    // A note's free text (the pins' notes, the incident's notes), as derived text: a whole note
    // when the rules name its column (note, text), the JSON in it, then the values redacted in the
    // keys it is about (the pinned event's key; a note about an event of the bundle: that event's
    // key; a note about the incident as a whole: every key's, in bundle order).
    const auto redactNote = [&keySecrets](const Redactor &nr, QString *text, const QString &where, const QString &column,
                                          const QList<qsizetype> &keysOf) {
        nr.apply(text, [&where] { return where; }, column);
        for (qsizetype k : keysOf)
            if (!keySecrets[k].list.isEmpty())
                nr.substitute(text, [&where] { return where; }, keySecrets[k]);
    };
    QList<qsizetype> everyKey(bundle->keys.size());
    std::iota(everyKey.begin(), everyKey.end(), 0);
    const auto keysOfEvent = [&keyIndex](const QString &idemKey) {
        const auto k = keyIndex.constFind(idemKey);
        return k == keyIndex.constEnd() ? QList<qsizetype>() : QList<qsizetype>{*k};
    };
    QVector<Redaction> pinList;
    if (bundle->incident) {
        Redactor pr = r;
        pr.found = &pinList;
        QVector<IncidentPin> &pins = bundle->incident->pins;
        for (qsizetype i = 0; i < pins.size(); ++i) {
            const QString at = QStringLiteral("incident.pins[%1]").arg(i);
            redactNote(pr, &pins[i].note, at + QStringLiteral(".note"), QStringLiteral("note"),
                       pins[i].event ? keysOfEvent(pins[i].event->idemKey) : QList<qsizetype>());
            if (auto &e = pins[i].event)
                redactEvent(pr, &*e, [&at](const char *field) { return at + QStringLiteral(".event.") + QLatin1String(field); });
        }
        QVector<IncidentNote> &notes = bundle->incident->notes;
        for (qsizetype i = 0; i < notes.size(); ++i) {
            QList<qsizetype> about = everyKey;
            if (notes[i].eventKind && !notes[i].eventId.isEmpty()) {
                about.clear();
                const auto same = [&](const WindowEvent &e) { return e.kind == *notes[i].eventKind && e.id == notes[i].eventId; };
                const auto e = std::find_if(bundle->events.cbegin(), bundle->events.cend(), same);
                if (e != bundle->events.cend())
                    about = keysOfEvent(e->idemKey);
                for (const IncidentPin &p : std::as_const(pins))
                    if (about.isEmpty() && p.event && same(*p.event))
                        about = keysOfEvent(p.event->idemKey);
            }
            redactNote(pr, &notes[i].text, QStringLiteral("incident.notes[%1].text").arg(i), QStringLiteral("text"), about);
        }
    }
    constexpr qsizetype kEventsPerBlock = 4096;
    const qsizetype blocks = (bundle->events.size() + kEventsPerBlock - 1) / kEventsPerBlock;
    QVector<QVector<Redaction>> perBlock(blocks);
    QList<qsizetype> blockOrder(blocks);
    std::iota(blockOrder.begin(), blockOrder.end(), 0);
    WindowEvent *events = bundle->events.data();
    const qsizetype eventCount = bundle->events.size();
    QVector<Redaction> *blockLists = perBlock.data();
    QtConcurrent::blockingMap(blockOrder, [&r, &redactEvent, events, eventCount, blockLists](qsizetype b) {
        Redactor er = r;
        er.found = &blockLists[b];
        for (qsizetype i = b * kEventsPerBlock; i < std::min(eventCount, (b + 1) * kEventsPerBlock); ++i)
            redactEvent(er, &events[i], [i](const char *field) { return QStringLiteral("events[%1].%2").arg(i).arg(QLatin1String(field)); });
    });

    bundle->redactions << pinList;
    for (const QVector<Redaction> &list : std::as_const(perBlock))
        bundle->redactions << list;
    for (const QVector<Redaction> &list : std::as_const(perKey))
        bundle->redactions << list;
}

} // namespace triage
