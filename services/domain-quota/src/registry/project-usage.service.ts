/**
 * Actual use per project and per department (docs/api/domain-quota.md "Registry", docs/decisions.md "Department
 * actual use"): the services report each project's use per region (`PUT /projects/{project_id}/usage/{region}`), and
 * a department's use is the sum of its projects' reports, computed when read, joined with the registry's projects (so a
 * project that moves department counts for its new one at once, and a deleted project's reports are gone with it).
 *
 * Like the region reports: values are checked against the region's catalogue now (registry.usage.ts) and shown for
 * the items it offers now; a report of a deleted region is not shown (and is shown again if the region is re-created,
 * as a region's own report is).
 */
import { domainNotFound, projectNotFound, regionNotFound } from '../errors';
import { type ProjectUsageDoc, projectUsageId, type RegistryRepository } from './registry.repository';
import type { UsageView } from './registry.service';
import { checkedReport, regionItemsOf, regionValues, sumReports, wireValues } from './registry.usage';

/** A department's actual use in one region: the sum of its projects' reports. */
export interface DepartmentUsageView {
  /** The oldest `collected_at` among the summed reports. */
  collected_at: string;
  values: Record<string, number>;
  /** How many of its projects reported in this region. */
  projects_reported: number;
  /** How many projects the department has. */
  projects: number;
}

export class ProjectUsageService {
  constructor(private readonly repo: RegistryRepository) {}

  /**
   * Replaces one project's actual use in one region.
   * @returns the stored report (the items as given, in their output spelling) and whether it was the first.
   * @throws AppError 404 unknown project or region; 400 listing every unknown item or bad value (-1 is not a usage).
   */
  async put(
    projectId: string,
    region: string,
    next: { collected_at?: string; values: Record<string, number> },
  ): Promise<{ usage: UsageView; created: boolean }> {
    const [project, cur] = await Promise.all([this.repo.findProject(projectId), this.repo.findRegion(region)]);
    if (!project) throw projectNotFound(projectId);
    if (!cur) throw regionNotFound(region);
    const { report, view } = checkedReport(cur, next);
    const doc: ProjectUsageDoc = { _id: projectUsageId(projectId, region), project_id: projectId, region, ...report };
    const created = await this.repo.putProjectUsage(doc);
    // A project deleted meanwhile (its reports deleted before it) must not keep this one: it would come back if the
    // project were registered again.
    if (!(await this.repo.findProject(projectId))) {
      await this.repo.deleteProjectUsage(doc._id);
      throw projectNotFound(projectId);
    }
    return { usage: view, created };
  }

  /**
   * A project's reports: `{<region>: {collected_at, values}}` for each region it reported in (every item of the
   * region, 0 when not reported). @throws AppError 404 unknown project.
   */
  async ofProject(projectId: string): Promise<Record<string, UsageView>> {
    const [project, regions, reports] = await Promise.all([
      this.repo.findProject(projectId),
      this.repo.catalogue(),
      this.repo.projectUsageOf([projectId]),
    ]);
    if (!project) throw projectNotFound(projectId);
    const out: Record<string, UsageView> = {};
    for (const r of regions) {
      const report = reports.find((u) => u.region === r._id);
      if (report) out[r._id] = { collected_at: report.collected_at, values: regionValues(regionItemsOf(r).keys(), report.values) };
    }
    return out;
  }

  /**
   * A department's actual use per region: the sum of its projects' reports (a region where none reported is absent).
   * @throws AppError 404 unknown department.
   */
  async ofDepartment(domainId: string): Promise<Record<string, DepartmentUsageView>> {
    const [known, regions, projects] = await Promise.all([
      this.repo.departmentExists(domainId),
      this.repo.catalogue(),
      this.repo.listProjects(domainId),
    ]);
    if (!known) throw domainNotFound(domainId);
    const reports = await this.repo.projectUsageOf(projects.map((p) => p._id));
    const out: Record<string, DepartmentUsageView> = {};
    for (const r of regions) {
      const sum = sumReports(
        reports.filter((u) => u.region === r._id),
        regionItemsOf(r).keys(),
      );
      if (!sum) continue;
      out[r._id] = {
        collected_at: sum.collected_at,
        values: wireValues(sum.values),
        projects_reported: sum.reports,
        projects: projects.length,
      };
    }
    return out;
  }
}
