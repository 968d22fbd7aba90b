// SPDX-License-Identifier: GPL-2.0-only
/*
 * smmulab_bench: DMA map/unmap stress through the IOMMU, with latency
 * histograms (the stock dma_map_benchmark only reports mean and stddev).
 *
 * Bind it to any PCI device behind the IOMMU with driver_override, then
 * issue SMMULAB_BENCH_RUN on /sys/kernel/debug/smmulab_bench:
 *
 * - map-unmap: THREADS kthreads each map and unmap a SIZE-byte buffer made
 *   of separate pages (one scatterlist entry per page, so the IOMMU maps
 *   it with page-sized PTEs) for SECONDS;
 * - unmap-storm: each kthread maps TOTAL bytes as SIZE-byte chunks, then
 *   unmaps them all, and again until SECONDS are up.  Without range
 *   invalidation, unmapping a 2 MiB chunk of 4 KiB pages takes 512 TLBI
 *   commands and a CMD_SYNC.
 * - asid-flush: each kthread flushes the device's whole IOTLB (on SMMUv3:
 *   one TLBI by ASID and a CMD_SYNC) over and over, as SVA does for every
 *   invalidation of 2 MiB or more without range invalidation.  The flush
 *   time is recorded as the unmap time, a flush counts as one op.
 *
 * Every map and every unmap is timed into a histogram, per thread, merged
 * at the end.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/iommu.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/prandom.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "smmulab_bench.h"

struct bench_thread {
	struct bench_run *run;
	struct task_struct *task;
	u64 ops, errors;
	u64 map_sum, map_min, map_max, unmap_sum, unmap_min, unmap_max;
	u64 *hist_map, *hist_unmap;
	struct rnd_state rnd;
	int ret;
};

struct bench_run {
	struct device *dev;
	struct smmulab_bench_params p;
	u64 deadline_ns;
	struct bench_thread t[SMMULAB_BENCH_MAX_THREADS];
};

static struct device *bench_dev;
static DEFINE_MUTEX(bench_lock);
static struct dentry *bench_debugfs;

static void record(u64 *hist, u64 *sum, u64 *min, u64 *max, u64 ns)
{
	hist[smmulab_hist_index(ns)]++;
	*sum += ns;
	if (!*min || ns < *min)
		*min = ns ?: 1;
	if (ns > *max)
		*max = ns;
}

/* A table of @npages separate pages, one scatterlist entry each */
static int build_sgt(struct sg_table *sgt, struct page **pages,
		     unsigned int npages)
{
	struct scatterlist *sg;
	unsigned int i;
	int ret;

	ret = sg_alloc_table(sgt, npages, GFP_KERNEL);
	if (ret)
		return ret;
	for_each_sgtable_sg(sgt, sg, i)
		sg_set_page(sg, pages[i], PAGE_SIZE, 0);
	return 0;
}

static void flush_loop(struct bench_thread *t)
{
	struct bench_run *run = t->run;
	struct iommu_domain *dom = iommu_get_domain_for_dev(run->dev);

	while (!kthread_should_stop() && ktime_get_ns() < run->deadline_ns) {
		u64 t0 = ktime_get_ns(), t1;

		iommu_flush_iotlb_all(dom);
		t1 = ktime_get_ns();
		record(t->hist_unmap, &t->unmap_sum, &t->unmap_min,
		       &t->unmap_max, t1 - t0);
		t->ops++;
		cond_resched();
	}
}

/*
 * With a seed (smmulab.seed: the runner gives each repeat its own), every
 * thread starts after its own pseudo-random 0..999 us.  Under icount a
 * repeat would otherwise replay the first one exactly; staggered, the
 * threads meet the command queue in another order each repeat, and the
 * same seed replays the same run.  Seed 0: no delay.
 */
static void seeded_start(struct bench_thread *t)
{
	struct bench_run *run = t->run;
	unsigned int i = t - run->t;

	if (!run->p.seed)
		return;
	prandom_seed_state(&t->rnd, run->p.seed ^ (0x9e3779b97f4a7c15ULL * (i + 1)));
	fsleep(prandom_u32_state(&t->rnd) % 1000);
}

static int bench_thread_fn(void *data)
{
	struct bench_thread *t = data;
	struct bench_run *run = t->run;
	unsigned int npages = run->p.size >> PAGE_SHIFT, i, nchunks;
	struct page **pages;
	struct sg_table *sgts;
	bool *mapped = NULL;
	int ret = 0;

	seeded_start(t);
	if (run->p.mode == SMMULAB_BENCH_ASID_FLUSH) {
		flush_loop(t);
		goto out_idle;
	}
	nchunks = run->p.mode == SMMULAB_BENCH_UNMAP_STORM ?
		  div64_u64(run->p.total, run->p.size) : 1;
	pages = kcalloc(npages, sizeof(*pages), GFP_KERNEL);
	sgts = kvcalloc(nchunks, sizeof(*sgts), GFP_KERNEL);
	mapped = kvcalloc(nchunks, sizeof(*mapped), GFP_KERNEL);
	if (!pages || !sgts || !mapped) {
		ret = -ENOMEM;
		goto out;
	}
	/* The same pages back every chunk: only the IOVA space grows */
	for (i = 0; i < npages; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		if (!pages[i]) {
			ret = -ENOMEM;
			goto out;
		}
	}
	for (i = 0; i < nchunks; i++) {
		ret = build_sgt(&sgts[i], pages, npages);
		if (ret)
			goto out;
	}

	while (!kthread_should_stop() && ktime_get_ns() < run->deadline_ns) {
		u64 t0, t1;

		/* A failed map is counted and skipped: the run goes on */
		for (i = 0; i < nchunks; i++) {
			t0 = ktime_get_ns();
			mapped[i] = !dma_map_sgtable(run->dev, &sgts[i],
						     DMA_BIDIRECTIONAL, 0);
			t1 = ktime_get_ns();
			if (!mapped[i]) {
				t->errors++;
				continue;
			}
			record(t->hist_map, &t->map_sum, &t->map_min,
			       &t->map_max, t1 - t0);
			cond_resched();
		}
		for (i = 0; i < nchunks; i++) {
			if (!mapped[i])
				continue;
			t0 = ktime_get_ns();
			dma_unmap_sgtable(run->dev, &sgts[i], DMA_BIDIRECTIONAL,
					  0);
			t1 = ktime_get_ns();
			record(t->hist_unmap, &t->unmap_sum, &t->unmap_min,
			       &t->unmap_max, t1 - t0);
			t->ops++;
			cond_resched();
		}
	}

out:
	if (sgts) {
		for (i = 0; i < nchunks; i++)
			sg_free_table(&sgts[i]);
		kvfree(sgts);
	}
	kvfree(mapped);
	if (pages) {
		for (i = 0; i < npages; i++)
			if (pages[i])
				__free_page(pages[i]);
		kfree(pages);
	}
	t->ret = ret;
out_idle:
	/* Stay until stopped, so kthread_stop() always finds us */
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return ret;
}

/* Pages and scatterlist entries a run pins: at most half of the RAM */
static bool bench_fits(struct smmulab_bench_params *p)
{
	u64 npages = p->size >> PAGE_SHIFT, nchunks = 1, bytes;

	if (p->mode == SMMULAB_BENCH_ASID_FLUSH)
		return true;
	if (p->mode == SMMULAB_BENCH_UNMAP_STORM)
		nchunks = div64_u64(p->total, p->size);
	bytes = p->threads * (npages * PAGE_SIZE +
			      nchunks * npages * sizeof(struct scatterlist));
	return bytes <= (u64)totalram_pages() * PAGE_SIZE / 2;
}

static int bench_check(struct smmulab_bench_params *p)
{
	if (p->mode > SMMULAB_BENCH_ASID_FLUSH || !p->threads ||
	    p->threads > SMMULAB_BENCH_MAX_THREADS || !p->seconds ||
	    p->seconds > 3600 || p->size < PAGE_SIZE || p->size > SZ_64M ||
	    p->size % PAGE_SIZE || !p->hist_map || !p->hist_unmap)
		return -EINVAL;
	if (p->mode == SMMULAB_BENCH_UNMAP_STORM &&
	    (p->total < p->size || p->total > (64ULL << 30) ||
	     div64_u64(p->total, p->size) > 65536))
		return -EINVAL;
	if (!bench_fits(p))
		return -E2BIG;
	return 0;
}

static long bench_run(struct smmulab_bench_args *args)
{
	struct smmulab_bench_result *res = &args->result;
	u64 *hist_map = NULL, *hist_unmap = NULL;
	size_t hsz = SMMULAB_HIST_BUCKETS * sizeof(u64);
	struct bench_run *run;
	unsigned int i, j;
	u64 start;
	long ret;

	ret = bench_check(&args->params);
	if (ret)
		return ret;
	run = kvzalloc(sizeof(*run), GFP_KERNEL);
	hist_map = kvzalloc(hsz, GFP_KERNEL);
	hist_unmap = kvzalloc(hsz, GFP_KERNEL);
	if (!run || !hist_map || !hist_unmap) {
		ret = -ENOMEM;
		goto out;
	}
	run->dev = bench_dev;
	run->p = args->params;

	for (i = 0; i < run->p.threads; i++) {
		struct bench_thread *t = &run->t[i];

		t->run = run;
		t->hist_map = kvzalloc(hsz, GFP_KERNEL);
		t->hist_unmap = kvzalloc(hsz, GFP_KERNEL);
		if (!t->hist_map || !t->hist_unmap) {
			ret = -ENOMEM;
			goto stop;
		}
	}
	start = ktime_get_ns();
	run->deadline_ns = start + (u64)run->p.seconds * NSEC_PER_SEC;
	for (i = 0; i < run->p.threads; i++) {
		struct bench_thread *t = &run->t[i];

		t->task = kthread_create_on_node(bench_thread_fn, t,
						 dev_to_node(run->dev),
						 "smmulab_bench/%u", i);
		if (IS_ERR(t->task)) {
			ret = PTR_ERR(t->task);
			t->task = NULL;
			goto stop;
		}
		/* One thread per online CPU while there are CPUs */
		kthread_bind(t->task, cpumask_nth(i % num_online_cpus(),
						  cpu_online_mask));
	}
	for (i = 0; i < run->p.threads; i++)
		wake_up_process(run->t[i].task);

	msleep_interruptible(run->p.seconds * 1000);
	/* Threads finish the round they are in: wait for that too */
stop:
	for (i = 0; i < run->p.threads; i++) {
		struct bench_thread *t = &run->t[i];

		if (t->task)
			kthread_stop(t->task);
		if (!ret && t->ret)
			ret = t->ret;
	}
	if (ret)
		goto free_threads;

	memset(res, 0, sizeof(*res));
	res->elapsed_ns = ktime_get_ns() - start;
	for (i = 0; i < run->p.threads; i++) {
		struct bench_thread *t = &run->t[i];

		res->ops[i] = t->ops;
		res->map_min[i] = t->map_min;
		res->map_max[i] = t->map_max;
		res->unmap_min[i] = t->unmap_min;
		res->unmap_max[i] = t->unmap_max;
		res->errors += t->errors;
		res->map_sum_ns += t->map_sum;
		res->unmap_sum_ns += t->unmap_sum;
		res->map_max_ns = max(res->map_max_ns, t->map_max);
		res->unmap_max_ns = max(res->unmap_max_ns, t->unmap_max);
		for (j = 0; j < SMMULAB_HIST_BUCKETS; j++) {
			hist_map[j] += t->hist_map[j];
			hist_unmap[j] += t->hist_unmap[j];
		}
	}
	if (copy_to_user(u64_to_user_ptr(run->p.hist_map), hist_map, hsz) ||
	    copy_to_user(u64_to_user_ptr(run->p.hist_unmap), hist_unmap, hsz))
		ret = -EFAULT;

free_threads:
	for (i = 0; i < run->p.threads; i++) {
		kvfree(run->t[i].hist_map);
		kvfree(run->t[i].hist_unmap);
	}
out:
	kvfree(hist_map);
	kvfree(hist_unmap);
	kvfree(run);
	return ret;
}

static long bench_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct smmulab_bench_args args;
	void __user *uarg = (void __user *)arg;
	long ret;

	if (cmd != SMMULAB_BENCH_RUN)
		return -ENOTTY;
	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	mutex_lock(&bench_lock);
	ret = bench_dev ? bench_run(&args) : -ENODEV;
	mutex_unlock(&bench_lock);
	if (!ret && copy_to_user(uarg, &args, sizeof(args)))
		ret = -EFAULT;
	return ret;
}

static const struct file_operations bench_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.unlocked_ioctl = bench_ioctl,
};

static int bench_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	int ret;

	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(48));
	if (ret)
		return ret;
	if (!iommu_get_domain_for_dev(&pdev->dev)) {
		dev_err(&pdev->dev, "smmulab_bench: not behind an IOMMU\n");
		return -ENODEV;
	}
	mutex_lock(&bench_lock);
	if (bench_dev) {
		mutex_unlock(&bench_lock);
		return -EBUSY;
	}
	bench_dev = &pdev->dev;
	mutex_unlock(&bench_lock);
	dev_info(&pdev->dev, "smmulab_bench ready\n");
	return 0;
}

static void bench_remove(struct pci_dev *pdev)
{
	mutex_lock(&bench_lock);
	if (bench_dev == &pdev->dev)
		bench_dev = NULL;
	mutex_unlock(&bench_lock);
}

/* No ID table: bind with driver_override only */
static struct pci_driver bench_driver = {
	.name = "smmulab_bench",
	.probe = bench_probe,
	.remove = bench_remove,
};

static int __init bench_init(void)
{
	int ret;

	bench_debugfs = debugfs_create_file("smmulab_bench", 0600, NULL, NULL,
					    &bench_fops);
	ret = pci_register_driver(&bench_driver);
	if (ret)
		debugfs_remove(bench_debugfs);
	return ret;
}

static void __exit bench_exit(void)
{
	pci_unregister_driver(&bench_driver);
	debugfs_remove(bench_debugfs);
}

module_init(bench_init);
module_exit(bench_exit);
MODULE_DESCRIPTION("smmulab DMA map/unmap stress with latency histograms");
MODULE_LICENSE("GPL");
