#include "model/work/BackgroundWork.h"

#include <QCoreApplication>
#include <QEvent>
#include <QMetaObject>

namespace gapscope {

const std::atomic<bool>* BackgroundWork::Run::closingFlag() const
{
    return &m_owner->m_closing;
}

void BackgroundWork::Run::post(std::function<void()> fn) const
{
    // m_owner is alive: its destructor waits for the pool before its members go away.
    QMetaObject::invokeMethod(
        m_owner,
        [owner = m_owner, generation = m_generation, fn = std::move(fn)] {
            owner->deliver(generation, fn, false);
        },
        Qt::QueuedConnection);
}

void BackgroundWork::Run::finish(std::function<void()> fn) const
{
    QMetaObject::invokeMethod(
        m_owner,
        [owner = m_owner, generation = m_generation, fn = std::move(fn)] {
            owner->deliver(generation, fn, true);
        },
        Qt::QueuedConnection);
}

BackgroundWork::BackgroundWork(QObject* parent, int maxThreads) : QObject(parent)
{
    m_pool.setMaxThreadCount(maxThreads);
}

BackgroundWork::~BackgroundWork()
{
    m_closing.store(true);
    if (m_cancel)
        m_cancel->store(true);
    m_pool.waitForDone();
}

quint64 BackgroundWork::startRun(std::function<void(const Run&)> work)
{
    if (m_cancel)
        m_cancel->store(true); // the superseded run stops early; its result is dropped
    const quint64 generation = ++m_generation;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_running = true;
    m_pool.start([run = Run(this, generation, m_cancel), work = std::move(work)] { work(run); });
    return generation;
}

void BackgroundWork::cancel()
{
    if (m_running && m_cancel)
        m_cancel->store(true);
}

void BackgroundWork::discard()
{
    if (m_cancel)
        m_cancel->store(true);
    m_cancel.reset();
    ++m_generation;
    m_running = false;
}

void BackgroundWork::waitForDone()
{
    m_pool.waitForDone();
    QCoreApplication::sendPostedEvents(this, QEvent::MetaCall);
}

void BackgroundWork::deliver(quint64 generation, const std::function<void()>& fn, bool final)
{
    if (generation != m_generation || !m_running)
        return; // superseded, discarded, or (a progress report) after the result
    if (final) {
        m_running = false;
        m_cancel.reset();
    }
    fn();
}

} // namespace gapscope
