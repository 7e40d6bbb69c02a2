// JsonTreeModel: lazily made branches, off-thread parsing of big documents, invalid and
// NULL snapshots, on snapshots read from a real (SQLite) database through the Workspace.

#include "JsonTreeModel.h"
#include "ModelTestUtil.h"
#include "Schema.h"
#include "KeyDetail.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>

using namespace triage;
using namespace triage::test;

class TestJsonTreeModel : public QObject {
    Q_OBJECT
private:
    /// Stores `snapshot` (NULL when nullopt) as a SUCCESS record's result_snapshot and reads
    /// it back through loadKeyDetail(): the text the detail view would get.
    std::optional<QString> roundTrip(const std::optional<QString> &snapshot)
    {
        const QString key = QStringLiteral("ticket:create:acme:json%1").arg(m_next++);
        QString literal = QStringLiteral("NULL");
        if (snapshot)
            literal = QLatin1Char('\'') + QString(*snapshot).replace(QLatin1Char('\''), QStringLiteral("''")) + QLatin1Char('\'');
        const QString e = m_db->adminExec(QStringLiteral("INSERT INTO idempotency_record (idem_key, biz_type, status, "
                                                         "result_snapshot, expire_at) VALUES ('%1', 'ticket_create', 1, %2, "
                                                         "'2099-01-01T00:00:00.000000Z')")
                                              .arg(key, literal));
        if (!e.isEmpty()) {
            qWarning("insert failed: %s", qPrintable(e));
            return QStringLiteral("<insert failed>");
        }
        const KeyDetail d = awaitResult(loadKeyDetail(*m_ws, key));
        if (!d.record) {
            qWarning("record not read back");
            return QStringLiteral("<not read back>");
        }
        return d.record->resultSnapshot;
    }

    static QString cell(const QAbstractItemModel &m, int row, int column, const QModelIndex &parent = {},
                        int role = Qt::DisplayRole)
    {
        return m.index(row, column, parent).data(role).toString();
    }

    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<Workspace> m_ws;
    int m_next = 0;

private slots:
    void initTestCase()
    {
        m_db = std::make_unique<TestDatabase>(QStringLiteral("sqlite"));
        QVERIFY(m_db->available());
        m_ws = std::make_unique<Workspace>(m_db->config());
        const QString e = initSchema(*m_ws);
        QVERIFY2(e.isEmpty(), qPrintable(e));
    }
    void cleanupTestCase()
    {
        m_ws.reset();
        m_db.reset();
    }

    void lazyBranches()
    {
        const auto text = roundTrip(QStringLiteral("{\"b\":[1,2,{\"x\":null,\"deep\":{\"k\":\"v\"}}],\"a\":\"text\",\"n\":12.5,\"t\":true,\"o\":{}}"));
        QVERIFY(text);
        JsonTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy parsed(&model, &JsonTreeModel::parsed);
        model.setJsonText(text);
        QCOMPARE(parsed.size(), 1); // small: parsed inline
        QVERIFY(model.parseResult().ok);
        QVERIFY(!model.isParsing());

        // Top level: members in QJsonObject order (sorted by key).
        QCOMPARE(model.rowCount(), 5);
        QCOMPARE(model.columnCount(), 3);
        const QStringList keys = {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("n"), QStringLiteral("o"), QStringLiteral("t")};
        const QStringList values = {QStringLiteral("text"), QStringLiteral("[3 items]"), QStringLiteral("12.5"),
                                    QStringLiteral("{0 keys}"), QStringLiteral("true")};
        const QStringList types = {QStringLiteral("string"), QStringLiteral("array"), QStringLiteral("number"),
                                   QStringLiteral("object"), QStringLiteral("bool")};
        for (int r = 0; r < 5; ++r) {
            QCOMPARE(cell(model, r, JsonTreeModel::KeyColumn), keys[r]);
            QCOMPARE(cell(model, r, JsonTreeModel::ValueColumn), values[r]);
            QCOMPARE(cell(model, r, JsonTreeModel::TypeColumn), types[r]);
        }

        // "b" is a branch: its row count comes from the JSON, its items only exist once
        // something indexes into it (a view does so when the branch is expanded).
        const QModelIndex b = model.index(1, 0);
        QVERIFY(model.hasChildren(b));
        QCOMPARE(model.rowCount(b), 3);
        QVERIFY(!model.canFetchMore(b));
        QVERIFY(!model.hasChildren(model.index(3, 0))); // "o" is empty
        QVERIFY(!model.hasChildren(model.index(0, 0)));
        QCOMPARE(cell(model, 0, 0, b), QStringLiteral("[0]"));
        QCOMPARE(cell(model, 0, 1, b), QStringLiteral("1"));
        const QModelIndex third = model.index(2, 0, b);
        QCOMPARE(model.parent(third), b);
        QCOMPARE(cell(model, 2, 1, b), QStringLiteral("{2 keys}"));
        QCOMPARE(model.rowCount(third), 2);
        QCOMPARE(cell(model, 0, 0, third), QStringLiteral("deep"));
        QCOMPARE(cell(model, 1, 0, third), QStringLiteral("x"));
        QCOMPARE(cell(model, 1, 1, third), QStringLiteral("null"));
        QCOMPARE(model.index(1, 1, third).data(roles::IsNull).toBool(), true);
        QCOMPARE(model.index(1, 0, third).data(JsonTreeModel::PathRole).toString(), QStringLiteral("$.b[2].x"));
        QCOMPARE(model.index(0, 0, third).data(JsonTreeModel::JsonRole).toString(), QStringLiteral("{\"k\":\"v\"}"));
        QCOMPARE(model.index(2, 0, b).data(JsonTreeModel::TypeRole).toString(), QStringLiteral("object"));
        QCOMPARE(model.headerData(1, Qt::Horizontal).toString(), QStringLiteral("Value"));
    }

    void itemsAreMadeOnlyForOpenedBranches()
    {
        // No tester here: it walks the whole tree and so would make every item.
        QJsonArray items;
        for (int i = 0; i < 1234; ++i)
            items.append(QJsonObject{{QStringLiteral("i"), i}, {QStringLiteral("tags"), QJsonArray{QStringLiteral("a"), QStringLiteral("b")}}});
        const auto text = roundTrip(QString::fromUtf8(QJsonDocument(QJsonObject{{QStringLiteral("items"), items},
                                                                                 {QStringLiteral("n"), 1}}).toJson(QJsonDocument::Compact)));
        QVERIFY(text && text->size() < 64 * 1024); // parsed inline
        JsonTreeModel model;
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        model.setJsonText(text);
        QVERIFY(model.parseResult().ok);
        QCOMPARE(model.itemCount(), qint64(0)); // nothing opened yet
        QCOMPARE(model.rowCount(), 2);
        const QModelIndex list = model.index(0, 0);
        QCOMPARE(model.itemCount(), qint64(2)); // the top level
        QCOMPARE(cell(model, 0, 1), QStringLiteral("[1234 items]"));
        QCOMPARE(list.data(JsonTreeModel::ChildCountRole).toInt(), 1234);
        QCOMPARE(model.rowCount(list), 1234);
        QCOMPARE(model.itemCount(), qint64(2)); // counted, not made
        const QModelIndex last = model.index(1233, 0, list);
        QCOMPARE(model.itemCount(), qint64(2 + 1234)); // "items" opened; its elements' branches still closed
        QCOMPARE(last.data().toString(), QStringLiteral("[1233]"));
        QCOMPARE(last.data(JsonTreeModel::PathRole).toString(), QStringLiteral("$.items[1233]"));
        QCOMPARE(model.rowCount(last), 2);
        QCOMPARE(cell(model, 0, 1, last), QStringLiteral("1233"));
        QCOMPARE(model.itemCount(), qint64(2 + 1234 + 2));
        QCOMPARE(inserted.size(), 0); // loads are resets; opening a branch inserts nothing
    }

    void bigDocumentParsesOffThread()
    {
        // ~1 MB: above the default 64 Ki threshold.
        QJsonArray rows;
        for (int i = 0; i < 20000; ++i)
            rows.append(QJsonObject{{QStringLiteral("id"), i}, {QStringLiteral("note"), QStringLiteral("row %1 of the big snapshot").arg(i)}});
        const auto text = roundTrip(QString::fromUtf8(QJsonDocument(rows).toJson(QJsonDocument::Compact)));
        QVERIFY(text && text->size() > 64 * 1024);
        JsonTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy parsed(&model, &JsonTreeModel::parsed);
        QSignalSpy parsing(&model, &JsonTreeModel::parsingChanged);
        model.setJsonText(text);
        QTRY_VERIFY_WITH_TIMEOUT(!parsed.isEmpty(), 30000);
        QVERIFY(!model.isParsing());
        // The off-thread path was taken: parsing started, then ended.
        QCOMPARE(parsing.size(), 2);
        QCOMPARE(parsing.at(0).at(0).toBool(), true);
        QCOMPARE(parsing.at(1).at(0).toBool(), false);
        QVERIFY(model.parseResult().ok);
        QCOMPARE(model.parseResult().characters, qint64(text->size()));
        QCOMPARE(model.rowCount(), 20000);
        QCOMPARE(cell(model, 19999, 0), QStringLiteral("[19999]"));
        QCOMPARE(cell(model, 1, 1, model.index(19999, 0)), QStringLiteral("row 19999 of the big snapshot"));

        // A big parse superseded by a small document is dropped when it finishes.
        parsed.clear();
        model.setJsonText(text);
        model.setJsonText(QStringLiteral("[42]"));
        QCOMPARE(parsed.size(), 1);
        QTest::qWait(1500);
        QCOMPARE(parsed.size(), 1);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(cell(model, 0, 1), QStringLiteral("42"));
    }

    void invalidNullAndScalar()
    {
        // A truncated snapshot (the demo's malformed SUCCESS record) and a multi-line one.
        const auto truncated = roundTrip(QStringLiteral("{\"priority\":\"P2\",\"tenant\":\"acme\",\"title\":\"Printer qu"));
        JsonTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy parsed(&model, &JsonTreeModel::parsed);
        model.setJsonText(truncated);
        QCOMPARE(parsed.size(), 1);
        QVERIFY(!model.parseResult().ok);
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.parseResult().error, QStringLiteral("unterminated string at line 1, column 53 (offset 52)"));
        QCOMPARE(model.parseResult().errorOffset, 52);

        model.setJsonText(roundTrip(QStringLiteral("{\n  \"a\": 1,\n  \"b\": tru\n}")));
        QVERIFY(!model.parseResult().ok);
        QCOMPARE(model.parseResult().errorLine, 3);
        QCOMPARE(model.parseResult().error, QStringLiteral("illegal value at line 3, column 8 (offset 19)"));

        model.setJsonText(roundTrip(std::nullopt));
        QVERIFY(model.parseResult().isNull);
        QCOMPARE(model.parseResult().error, QStringLiteral("NULL"));
        QCOMPARE(model.rowCount(), 0);

        model.setJsonText(roundTrip(QStringLiteral("\"just text\"")));
        QVERIFY(model.parseResult().ok);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(cell(model, 0, 0), QStringLiteral("(value)"));
        QCOMPARE(cell(model, 0, 1), QStringLiteral("just text"));
        QCOMPARE(cell(model, 0, 2), QStringLiteral("string"));
        QCOMPARE(model.index(0, 0).data(JsonTreeModel::PathRole).toString(), QStringLiteral("$"));
        QVERIFY(!model.hasChildren(model.index(0, 0)));

        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void duplicateKeysShownAndFlagged()
    {
        // A parser keeps only the last "status": the tree shows both, flagged, in document
        // order, also in a nested object and with a third occurrence.
        const QString text = QStringLiteral(
            R"({"status":"FAILED","id":7,"status":"SUCCESS","inner":{"k":1,"k":2,"k":3},"list":[{"a":1,"a":"x"}]})");
        JsonTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setJsonText(roundTrip(text));
        QVERIFY(model.parseResult().ok);
        QCOMPARE(model.parseResult().duplicateKeys,
                 (QStringList{QStringLiteral("$.inner: \"k\" 3 times"), QStringLiteral("$.list[0]: \"a\" 2 times"),
                              QStringLiteral("$: \"status\" 2 times")})); // each object at its end: inner ones first
        // QJsonObject order: id, inner, list, status (1 of 2), status (2 of 2).
        QCOMPARE(model.rowCount(), 5);
        QCOMPARE(cell(model, 0, 0), QStringLiteral("id"));
        QCOMPARE(cell(model, 3, 0), QStringLiteral("status (1 of 2)"));
        QCOMPARE(cell(model, 3, 1), QStringLiteral("FAILED"));
        QCOMPARE(cell(model, 4, 0), QStringLiteral("status (2 of 2)"));
        QCOMPARE(cell(model, 4, 1), QStringLiteral("SUCCESS"));
        QCOMPARE(model.index(4, 0).data(JsonTreeModel::DuplicateRole).toString(), QStringLiteral("2 of 2"));
        QCOMPARE(model.index(4, 0).data(JsonTreeModel::PathRole).toString(), QStringLiteral("$.status"));
        QVERIFY(model.index(3, 0).data(roles::Tone).isValid());
        QVERIFY(!model.index(0, 0).data(roles::Tone).isValid());
        QCOMPARE(model.index(0, 0).data(JsonTreeModel::DuplicateRole).toString(), QString());
        const QModelIndex inner = model.index(1, 0);
        QCOMPARE(model.rowCount(inner), 3);
        for (int r = 0; r < 3; ++r) {
            QCOMPARE(model.index(r, 0, inner).data().toString(), QStringLiteral("k (%1 of 3)").arg(r + 1));
            QCOMPARE(model.index(r, 1, inner).data().toString(), QString::number(r + 1));
        }
        const QModelIndex element = model.index(0, 0, model.index(2, 0));
        QCOMPARE(model.rowCount(element), 2);
        QCOMPARE(model.index(1, 1, element).data().toString(), QStringLiteral("x"));
        // Without duplicates nothing is flagged.
        model.setJsonText(roundTrip(QStringLiteral(R"({"status":"SUCCESS"})")));
        QVERIFY(model.parseResult().duplicateKeys.isEmpty());
        QCOMPARE(cell(model, 0, 0), QStringLiteral("status"));
    }
};

QTEST_GUILESS_MAIN(TestJsonTreeModel)
#include "tst_jsontreemodel.moc"
