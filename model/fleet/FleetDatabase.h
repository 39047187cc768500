#pragma once
// The fleet index's SQLite database through Qt SQL (schema: model/fleet/FleetSchema.h,
// docs/fleet-schema.md). One object per thread: a Qt SQL connection belongs to the thread that
// opened it, so the indexer's workers hand their results to the one thread that writes.
// Every input is written in one transaction (its old rows replaced), so an index interrupted at
// any point leaves a whole database and the next run goes on from it.

#include "model/fleet/FleetRecord.h"

#include <QHash>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>
#include <QStringList>

#include <memory>

namespace gapscope {

class FleetDatabase
{
public:
    FleetDatabase();
    ~FleetDatabase();
    FleetDatabase(const FleetDatabase&) = delete;
    FleetDatabase& operator=(const FleetDatabase&) = delete;

    // Opens path, creating the schema in a new or empty file; refuses a database of another
    // schema version or a file that is not one (false, *error says why, naming the file).
    bool open(const QString& path, QString* error);
    void close();
    QSqlDatabase database() const;

    struct KnownInput
    {
        QString kind;
        FleetInputStamp stamp;
        bool vanished = false;
    };
    // Every input in the database by path (vanished ones too).
    QHash<QString, KnownInput> knownInputs(QString* error) const;

    // The paths the last index walked that are not inputs (FleetIndexer walkFleet's knownWalked).
    QHash<QString, FleetWalkedPath> walkedPaths(QString* error) const;
    // Writes the walked paths that are new or changed, removes those that are gone, in one
    // transaction.
    bool updateWalkedPaths(const QHash<QString, FleetWalkedPath>& changed, const QStringList& gone,
                           QString* error);

    // Replaces the input's rows (its inputs row, runs and their issue rows) in one transaction.
    bool writeInput(const IndexedInput& input, QString* error);
    // Marks the inputs (and their runs) vanished or present again, in one transaction.
    bool setVanished(const QStringList& paths, bool vanished, QString* error);
    // Adds every input of the database at partPath (a shard's), replacing the inputs of the same
    // path here, in one transaction; issues are added where missing.
    bool mergeFrom(const QString& partPath, QString* error);

private:
    bool exec(const QString& statement, QString* error);
    // A transaction begun, committed (rolled back when the commit fails); false with *error
    // naming the database.
    bool beginTransaction(QString* error);
    bool commitTransaction(QString* error);
    // *error = "what: SQLite's reason" of query, the transaction rolled back; false.
    bool failTransaction(const QString& what, const QSqlQuery& query, QString* error);
    QString m_connection;
    QString m_path;
    // writeInput's statements, prepared once per connection (SQLite compiles each one; an input
    // is a few rows)
    struct InputStatements;
    std::unique_ptr<InputStatements> m_inputStatements;
};

} // namespace gapscope
