// triage-upstream-sim: a loopback HTTP server that plays a business system's ticket query
// API over a ticket database, with fault injection (see UpstreamSim.h). Ships with the demo; the tests use it too.
#include "UpstreamSim.h"

#include "ConnectionProfile.h"
#include "DbWorker.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QHostAddress>
#include <QTextStream>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("triage-upstream-sim"));
    // stdout carries exactly one line (the port); everything else goes to stderr.
    auto log = spdlog::stderr_color_mt("sim");
    log->set_level(spdlog::level::warn);
    spdlog::set_default_logger(log);

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Upstream simulator: serves GET /tickets?idem_key=K, GET /tickets/{id}, POST /tickets/{id}/cancel from a "
        "ticket database on 127.0.0.1, with fault injection (/_sim/faults). Prints \"listening on "
        "http://127.0.0.1:PORT\" as its first stdout line."));
    parser.addHelpOption();
    QCommandLineOption portOpt(QStringLiteral("port"), QStringLiteral("TCP port on 127.0.0.1 (0: any free port)."),
                               QStringLiteral("port"), QStringLiteral("0"));
    QCommandLineOption dbOpt(QStringLiteral("ticket-db"),
                             QStringLiteral("Ticket database URL (sqlite:///abs/path.db, postgresql://user@host:port/db, "
                                            "mysql://user@host:port/db); password from TRIAGE_TICKET_DB_PASSWORD or "
                                            "TRIAGE_DB_PASSWORD."),
                             QStringLiteral("url"));
    QCommandLineOption noIdemOpt(QStringLiteral("no-idempotency"),
                                 QStringLiteral("Ignore X-Idempotency-Key on POST /tickets/{id}/cancel (every request acts)."));
    QCommandLineOption configOpt(QStringLiteral("config"),
                                 QStringLiteral("A triage config file whose [ticket.map] describes the ticket table (default: "
                                                "the default schema's names)."),
                                 QStringLiteral("file"));
    parser.addOptions({portOpt, dbOpt, noIdemOpt, configOpt});
    parser.process(app);

    QTextStream err(stderr);
    bool ok = false;
    const uint port = parser.value(portOpt).toUInt(&ok);
    if (!ok || port > 65535) {
        err << "triage-upstream-sim: --port must be 0..65535\n";
        return 1;
    }
    if (!parser.isSet(dbOpt)) {
        err << "triage-upstream-sim: --ticket-db URL is required\n";
        return 1;
    }
    QString why;
    const auto profile = triage::ConnectionProfile::fromUrl(parser.value(dbOpt), triage::DbRole::Ticket, &why);
    if (!profile) {
        err << "triage-upstream-sim: --ticket-db: " << why << "\n";
        return 1;
    }
    triage::SchemaMap schema = triage::SchemaMap::defaults();
    if (parser.isSet(configOpt)) {
        const auto config = triage::WorkspaceConfig::fromIniFile(parser.value(configOpt), &why);
        if (!config) {
            err << "triage-upstream-sim: --config: " << why << "\n";
            return 1;
        }
        schema = config->schema;
    }
    triage::DbWorker worker(*profile);
    triage::sim::UpstreamSim server(&worker, !parser.isSet(noIdemOpt), schema);
    const quint16 bound = server.listen(QHostAddress::LocalHost, quint16(port));
    if (bound == 0) {
        err << "triage-upstream-sim: cannot listen on 127.0.0.1:" << port << "\n";
        return 2;
    }
    std::printf("listening on http://127.0.0.1:%u\n", unsigned(bound));
    std::fflush(stdout);
    return app.exec();
}
