// triagectl on a production workspace (DESIGN.md §5 "Environments"), on every backend: a
// writing command without --production exits 4 with the exact message, with it runs; a read
// command and a dry run need nothing; --environment overrides the file (and a bad name is a
// usage error); --production elsewhere is accepted silently.
#include "CtlRun.h"
#include "TestDatabases.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace triage;
using triage::test::CtlRun;
using triage::test::TestDatabase;
using triage::test::runCtl;

namespace {

QStringList dbArgs(const QString &url)
{
    return {QStringLiteral("--idempotency-db"), url, QStringLiteral("--intent-db"), url, QStringLiteral("--ticket-db"), url};
}

/// The stderr lines of `r` that are triagectl's own (not the log's).
QStringList stderrLines(const CtlRun &r)
{
    QStringList out;
    for (const QString &l : QString::fromUtf8(r.err).split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        if (l.startsWith(QLatin1String("triagectl: ")))
            out << l;
    return out;
}

const QString kRefused = QStringLiteral("triagectl: claim writes to the databases of the production workspace \"shop-prod\": "
                                        "refused without --production (give --production to write to production)");

} // namespace

class TstProductionCli : public QObject {
    Q_OBJECT
private slots:
    void writesNeedProduction_data();
    void writesNeedProduction();
};

void TstProductionCli::writesNeedProduction_data()
{
    QTest::addColumn<QString>("backend");
    triage::test::addBackendRows();
}

void TstProductionCli::writesNeedProduction()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    {
        RUN_EXIT(init, 0, dbArgs(db.url()) + QStringList{QStringLiteral("init-schema"), QStringLiteral("--without-backstop")});
        RUN_EXIT(seeded, 0, dbArgs(db.url()) + QStringList{QStringLiteral("seed-demo")});
    }
    QTemporaryDir dir;
    const QString ini = dir.filePath(QStringLiteral("shop-prod.ini"));
    {
        QFile f(ini);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QStringLiteral("[console]\noperator=alice\nenvironment=production\n[idempotency]\nurl=%1\n[intent]\nurl=%1\n"
                               "[ticket]\nurl=%1\n[biz.notify_send]\n[biz.payment_capture]\n[biz.refund_issue]\n[biz.ticket_create]\n")
                    .arg(db.url())
                    .toUtf8());
    }
    const QStringList prod = {QStringLiteral("--config"), ini};

    // A read command runs as anywhere.
    RUN_EXIT(listed, 0, prod + QStringList{QStringLiteral("list"), QStringLiteral("unknown"), QStringLiteral("--limit"),
                                           QStringLiteral("1"), QStringLiteral("--format"), QStringLiteral("json")});
    const QJsonArray rows = QJsonDocument::fromJson(listed.out).array();
    QCOMPARE(rows.size(), 1);
    const QString key = rows.first().toObject().value(QStringLiteral("idem_key")).toString();
    QVERIFY(!key.isEmpty());

    // A writing command without --production: exit 4, the environment, the profile and the flag named.
    RUN_EXIT(refused, 4, prod + QStringList{QStringLiteral("claim"), key});
    QCOMPARE(stderrLines(refused), QStringList{kRefused});
    QCOMPARE(refused.out, QByteArray());
    RUN_EXIT(none, 0, prod + QStringList{QStringLiteral("claims"), QStringLiteral("--format"), QStringLiteral("json")});
    QCOMPARE(QJsonDocument::fromJson(none.out).array().size(), 0); // nothing was written

    // A dry run writes nothing: no --production needed; the mark's own rules decide (here:
    // no snapshot, refused by the backend, not by the environment).
    RUN_EXIT(dry, 4, prod + QStringList{QStringLiteral("mark"), key, QStringLiteral("--to"), QStringLiteral("success"),
                                        QStringLiteral("--reason"), QStringLiteral("upstream says created"), QStringLiteral("--dry-run")});
    QVERIFY2(QString::fromUtf8(dry.out).contains(QStringLiteral("  SUCCESS needs a result snapshot that is a JSON object: no snapshot given\n")),
             dry.describe().constData());
    QCOMPARE(stderrLines(dry), QStringList());

    // Commands that write as a side of mostly reading are read-only there too: an incident
    // is not created, the review not signed off (a trial found both written).
    RUN_EXIT(incident, 4, prod + QStringList{QStringLiteral("incident"), QStringLiteral("create"), QStringLiteral("--title"),
                                             QStringLiteral("x"), QStringLiteral("--from"), QStringLiteral("2026-12-01T00:00:00Z"),
                                             QStringLiteral("--to"), QStringLiteral("2026-12-01T01:00:00Z")});
    // The refusal names production as the reason, not --read-only (a trial found it did).
    const QString why = QStringLiteral(" (the production workspace \"shop-prod\" is read-only until writes are switched on: give "
                                       "triagectl --production, or type the profile's name in the console)");
    QCOMPARE(stderrLines(incident), QStringList{QStringLiteral("triagectl: read-only mode: incidents cannot be changed") + why});
    RUN_EXIT(signoff, 4, prod + QStringList{QStringLiteral("review"), QStringLiteral("signoff")});
    QCOMPARE(stderrLines(signoff), QStringList{QStringLiteral("triagectl: read-only mode: a day cannot be signed off") + why});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE action IN ('incident.create', 'review.signoff')")),
             QStringList{QStringLiteral("0")});

    // An empty KEY (a script's empty variable) is a usage error, never "the whole queue".
    RUN_EXIT(emptyKey, 1, prod + QStringList{QStringLiteral("--production"), QStringLiteral("mark"), QString(), QStringLiteral("--to"),
                                             QStringLiteral("success"), QStringLiteral("--reason"), QStringLiteral("testing empty key arg")});
    QCOMPARE(stderrLines(emptyKey).value(0),
             QStringLiteral("triagectl: mark: a KEY of 1 to 255 characters (an empty KEY is not a queue: name one with --queue)"));
    RUN_EXIT(emptyQuery, 1, prod + QStringList{QStringLiteral("query"), QStringLiteral(" ")});
    QCOMPARE(stderrLines(emptyQuery).value(0),
             QStringLiteral("triagectl: query: a KEY of 1 to 255 characters (an empty KEY is not a queue: name one with --queue)"));

    // With --production (before or after the command) it runs.
    RUN_EXIT(claimed, 0, prod + QStringList{QStringLiteral("claim"), key, QStringLiteral("--production")});
    RUN_EXIT(held, 0, prod + QStringList{QStringLiteral("claims"), QStringLiteral("--format"), QStringLiteral("json")});
    const QJsonArray claims = QJsonDocument::fromJson(held.out).array();
    QCOMPARE(claims.size(), 1);
    QCOMPARE(claims.first().toObject().value(QStringLiteral("subject")).toString(), key);

    // --environment overrides the file: on staging nothing is asked.
    RUN_EXIT(released, 0, QStringList{QStringLiteral("--environment"), QStringLiteral("staging")} + prod
                              + QStringList{QStringLiteral("release"), key});
    RUN_EXIT(bad, 1, QStringList{QStringLiteral("--environment"), QStringLiteral("prod")} + prod + QStringList{QStringLiteral("claims")});
    QCOMPARE(stderrLines(bad), (QStringList{QStringLiteral("triagectl: --environment \"prod\": use production, staging or development"),
                                            QStringLiteral("triagectl: run \"triagectl --help\" for usage")}));
    // ... and --environment production turns a plain workspace into one that needs --production.
    RUN_EXIT(viaOption, 4, QStringList{QStringLiteral("--environment"), QStringLiteral("production")} + dbArgs(db.url())
                               + QStringList{QStringLiteral("--operator"), QStringLiteral("alice"), QStringLiteral("claim"), key});
    QVERIFY2(stderrLines(viaOption).value(0).startsWith(QLatin1String("triagectl: claim writes to the databases of the production workspace \"")),
             viaOption.describe().constData());

    // The audit trail is oldest first: a table cut by --limit says so (a trial looked for
    // its latest rows among the oldest); a complete one does not.
    RUN_EXIT(cutTrail, 0, prod + QStringList{QStringLiteral("audit"), QStringLiteral("--limit"), QStringLiteral("1")});
    QVERIFY2(cutTrail.out.endsWith("\n1 audit row(s); --limit reached: the oldest shown (--since TIME or --limit 0 for later rows)\n"),
             cutTrail.describe().constData());
    RUN_EXIT(wholeTrail, 0, prod + QStringList{QStringLiteral("audit"), QStringLiteral("--limit"), QStringLiteral("0")});
    const QStringList trailLines = QString::fromUtf8(wholeTrail.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(trailLines.last(), QStringLiteral("%1 audit row(s)").arg(trailLines.size() - 2)); // header and count
    RUN_EXIT(exactTrail, 0, prod + QStringList{QStringLiteral("audit"), QStringLiteral("--limit"), QString::number(trailLines.size() - 2)});
    QCOMPARE(exactTrail.out, wholeTrail.out);

    // --production on a workspace that is not production: accepted silently.
    RUN_EXIT(elsewhere, 0, dbArgs(db.url()) + QStringList{QStringLiteral("--production"), QStringLiteral("--operator"),
                                                          QStringLiteral("alice"), QStringLiteral("claim"), key});
    QCOMPARE(stderrLines(elsewhere), QStringList());
}

QTEST_GUILESS_MAIN(TstProductionCli)
#include "tst_production_cli.moc"
