// Shared report pieces (DESIGN.md §7 "Reports").
#include "ReportHtml.h"

#include "ReportColumns.h"
#include "ReportPages.h"
#include "TextEscape.h"

#include <QApplication>
#include <QBuffer>
#include <QChart>
#include <QDateTime>
#include <QGraphicsScene>
#include <QPainter>
#include <QSvgGenerator>
#include <QFile>
#include <QPdfWriter>
#include <QTextDocument>
#include <QUrl>

namespace triage {

QString reportEsc(const QString &text)
{
    return escapeControlChars(text).toHtmlEscaped().replace(QLatin1Char('\''), QStringLiteral("&#39;"));
}

QString reportCss(ReportTarget target)
{
    if (target == ReportTarget::Pdf)
        return QStringLiteral(
            "body { font-family: sans-serif; font-size: 8pt; }"
            "h1 { font-size: 15pt; } h2 { font-size: 11pt; margin-top: 12pt; }"
            "th { background-color: #e8eaed; text-align: left; font-weight: bold; }"
            ".mono { font-family: monospace; } .local { color: #5f6368; } .muted { color: #5f6368; }"
            ".emono { font-family: monospace; font-size: 7pt; }"
            ".bad { color: #a4231a; font-weight: bold; } .good { color: #1e6b34; font-weight: bold; }"
            ".pinned { font-weight: bold; } .settling { font-style: italic; }"
            "dt { font-weight: bold; margin-top: 3pt; }"); // the header's labels (Window, Filters, …) stand out
    return QStringLiteral(
        "body { font-family: system-ui, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif; font-size: 14px; color: #202124;"
        " margin: 24px auto; max-width: 1400px; padding: 0 16px; }"
        "h1 { font-size: 24px; margin-bottom: 4px; } h2 { font-size: 18px; margin-top: 28px; border-bottom: 1px solid #dadce0;"
        " padding-bottom: 4px; }"
        "table { border-collapse: collapse; margin: 8px 0; } th, td { border: 1px solid #dadce0; padding: 3px 6px;"
        " vertical-align: top; text-align: left; }"
        "th { background: #f1f3f4; position: sticky; top: 0; } tr { break-inside: avoid; } thead { display: table-header-group; }"
        "td.num { text-align: right; } .mono { font-family: 'DejaVu Sans Mono', Menlo, Consolas, monospace; font-size: 12px; }"
        ".local { color: #5f6368; } .muted { color: #5f6368; } .bad { color: #a4231a; font-weight: bold; }"
        ".good { color: #1e6b34; font-weight: bold; } .pinned td { font-weight: bold; background: #fff8e1; }"
        ".settling td { font-style: italic; } .swatch { display: inline-block; width: 10px; height: 10px;"
        " border-radius: 2px; margin-right: 4px; vertical-align: middle; }"
        ".chart svg { max-width: 100%; height: auto; } td.detail { max-width: 480px; overflow-wrap: anywhere; }"
        "td.key { overflow-wrap: anywhere; max-width: 260px; } dl { display: grid; grid-template-columns: max-content auto;"
        " gap: 2px 12px; } dt { color: #5f6368; } dd { margin: 0; }"
        ".charts { display: flex; flex-wrap: wrap; gap: 12px; } tr.total td { font-weight: bold; background: #f8f9fa; }");
}

QString reportHtmlTable(const QStringList &headers, const QStringList &rows, const QString &cls, const QVector<int> &percents)
{
    QString out = QStringLiteral("<table border=\"1\" cellspacing=\"0\" cellpadding=\"3\"%1%2><thead><tr>")
                      .arg(cls.isEmpty() ? QString() : QStringLiteral(" class=\"%1\"").arg(cls),
                           percents.isEmpty() ? QString() : QStringLiteral(" width=\"100%\""));
    for (qsizetype i = 0; i < headers.size(); ++i)
        out += percents.isEmpty() ? QStringLiteral("<th>%1</th>").arg(headers[i])
                                  : QStringLiteral("<th width=\"%1%\">%2</th>").arg(percents.value(i, 1)).arg(headers[i]);
    out += QStringLiteral("</tr></thead><tbody>") + rows.join(QString()) + QStringLiteral("</tbody></table>");
    return out;
}

QString reportHtmlRow(const QStringList &cells, const QString &cls)
{
    QString out = cls.isEmpty() ? QStringLiteral("<tr>") : QStringLiteral("<tr class=\"%1\">").arg(cls);
    for (const QString &c : cells)
        out += c.startsWith(QStringLiteral("<td")) ? c : QStringLiteral("<td>%1</td>").arg(c);
    return out + QStringLiteral("</tr>");
}

QString inlineSvg(const QByteArray &bytes)
{
    QString svg = QString::fromUtf8(bytes);
    svg = svg.mid(svg.indexOf(QStringLiteral("<svg")));
    svg.remove(QStringLiteral(" xmlns=\"http://www.w3.org/2000/svg\""));
    svg.remove(QStringLiteral(" xmlns:xlink=\"http://www.w3.org/1999/xlink\""));
    return svg;
}

ReportClock::ReportClock(QTimeZone zone) : m_zone(zone.isValid() ? zone : QTimeZone::utc()) {}

QString ReportClock::zoneName() const
{
    const QString id = QString::fromUtf8(m_zone.id());
    return id.isEmpty() ? QStringLiteral("local") : id;
}

QString ReportClock::local(UtcMicros t) const
{
    const QDateTime d = QDateTime::fromMSecsSinceEpoch(t / 1000, QTimeZone::utc()).toTimeZone(m_zone);
    const int offset = d.offsetFromUtc();
    return d.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss ")) + QStringLiteral("%1%2:%3")
                                                                    .arg(offset < 0 ? QLatin1Char('-') : QLatin1Char('+'))
                                                                    .arg(qAbs(offset) / 3600, 2, 10, QLatin1Char('0'))
                                                                    .arg(qAbs(offset) % 3600 / 60, 2, 10, QLatin1Char('0'));
}

QString ReportClock::both(const QString &iso) const
{
    const auto t = parseUtcMicros(iso);
    if (!t)
        return reportEsc(iso.isEmpty() ? QStringLiteral("—") : iso);
    return QStringLiteral("%1 UTC <span class=\"local\">(%2 %3)</span>")
        .arg(reportEsc(utcToSecond(iso)), reportEsc(local(*t)), reportEsc(zoneName()));
}

namespace {

/// Lays `chart` out at `size` on a scene (which owns it) and calls `paint(scene)`.
template<typename Paint>
void paintChart(QChart *chart, QSize size, Paint paint)
{
    QGraphicsScene scene;
    scene.addItem(chart); // the scene owns it
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setBackgroundBrush(Qt::white);
    chart->setGeometry(QRectF(QPointF(0, 0), QSizeF(size)));
    QApplication::processEvents();
    scene.setSceneRect(QRectF(QPointF(0, 0), QSizeF(size)));
    paint(scene);
}

} // namespace

QByteArray reportChartSvg(QChart *chart, QSize size, const QString &title)
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    paintChart(chart, size, [&](QGraphicsScene &scene) {
        QSvgGenerator generator;
        generator.setOutputDevice(&buffer);
        generator.setSize(size);
        generator.setViewBox(QRect(QPoint(0, 0), size));
        generator.setResolution(96);
        generator.setTitle(title);
        QPainter painter(&generator);
        painter.setRenderHint(QPainter::Antialiasing);
        scene.render(&painter, QRectF(QPointF(0, 0), QSizeF(size)), scene.sceneRect());
    });
    return buffer.data();
}

QImage reportChartImage(QChart *chart, QSize shown, int scale)
{
    QImage image(shown * scale, QImage::Format_ARGB32);
    image.fill(Qt::white);
    paintChart(chart, shown, [&](QGraphicsScene &scene) {
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        scene.render(&painter, QRectF(QPointF(0, 0), QSizeF(image.size())), scene.sceneRect());
    });
    return image;
}

bool writeReportPdf(const QString &path, const QString &title, const QString &creator, const QString &html,
                    const QVector<std::pair<QString, QImage>> &images, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    QPdfWriter writer(&file);
    writer.setPageLayout(reportPdfPageLayout()); // A4 landscape, 12 mm margins (column widths assume it)
    writer.setTitle(title);
    writer.setCreator(creator);
    QTextDocument document;
    for (const auto &[name, image] : images)
        document.addResource(QTextDocument::ImageResource, QUrl(name), image);
    document.setHtml(html);
    // Our own pages (ReportPages.h): rows and headings whole, table headers repeated.
    printReportPages(document, writer, title);
    file.close();
    if (file.error() != QFileDevice::NoError) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace triage
