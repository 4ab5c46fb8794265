// The subcommands of `tilegrad mesh`: smooth, param, cloth and sphere (flags, run, summary, files).
#include <cstdio>
#include <filesystem>

#include "cmd_mesh.h"
#include "tilegrad/mesh/cloth.h"
#include "tilegrad/mesh/parameterization.h"
#include "tilegrad/mesh/smoothing.h"
#include "tilegrad/mesh/spherical.h"

namespace tilegrad::cli {
namespace {

void print_solve(const SolveResult& r) {
  std::printf("solver: %s after %d iterations (%s), energy %.10g, |g| %.3e, %.2f s\n",
              r.converged ? "converged" : "stopped", r.iterations, r.reason.c_str(), r.energy, r.gradient_norm,
              r.log.empty() ? 0.0 : r.log.back().seconds);
}

}  // namespace

void add_mesh_smooth(CLI::App& mesh) {
  struct Args {
    MeshInputFlags input;
    MeshSolveFlags solve;
    std::string weights = "cotangent";
    double anchor_weight = 1.0;
    bool free_boundary = false;
    std::string output;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = mesh.add_subcommand("smooth", "Minimise a Dirichlet energy (uniform or cotangent weights) with the "
                                            "boundary fixed and soft anchors to the input positions");
  a->input.add_to(*cmd, "sphere, grid, developable");
  a->solve.add_to(*cmd, false);
  cmd->add_option("--weights", a->weights, "uniform or cotangent")->check(CLI::IsMember({"uniform", "cotangent"}));
  cmd->add_option("--anchor-weight", a->anchor_weight, "Soft anchors: weight |x - x_input|^2 per vertex (0: none)");
  cmd->add_flag("--free-boundary", a->free_boundary, "Do not fix the boundary vertices");
  cmd->add_option("--output,-o", a->output, "Smoothed mesh (.obj or .ply)");
  cmd->callback([a] {
    mesh::SmoothingOptions o;
    o.weights = mesh::parse_dirichlet_weights(a->weights);
    o.anchor_weight = a->anchor_weight;
    o.fix_boundary = !a->free_boundary;
    o.solve = a->solve.settings(mesh::SmoothingOptions::default_settings());
    const io::TriangleMesh input = a->input.load();
    const mesh::SmoothingResult r = mesh::smooth_mesh(input, o);
    print_solve(r.solve);
    std::printf("fixed vertices: %zu\n", r.fixed_vertices);
    if (!a->output.empty()) write_mesh_file(a->output, r.mesh);
  });
}

void add_mesh_parameterize(CLI::App& mesh) {
  struct Args {
    MeshInputFlags input;
    MeshSolveFlags solve;
    double cut_fraction = 0.5;
    std::string output, cut_output;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = mesh.add_subcommand("param", "Parameterize a disk-topology mesh (closed genus-0 meshes are cut first): "
                                           "symmetric Dirichlet from a Tutte embedding, Newton with PSD projection");
  a->input.add_to(*cmd, "developable, grid, sphere");
  a->solve.add_to(*cmd, true);
  cmd->add_option("--cut-fraction", a->cut_fraction, "Closed inputs: share of the area the cut-out disk keeps")
      ->check(checks::range(0.01, 0.99));
  cmd->add_option("--output,-o", a->output, "The layout as a flat mesh (u, v, 0) (.obj or .ply)");
  cmd->add_option("--cut-output", a->cut_output, "The 3D disk that was parameterized (closed inputs: the cut patch)");
  cmd->callback([a] {
    mesh::ParameterizationOptions o;
    o.cut_fraction = a->cut_fraction;
    o.solve = a->solve.settings(mesh::ParameterizationOptions::default_settings());
    const io::TriangleMesh input = a->input.load();
    const mesh::ParameterizationResult r = mesh::parameterize(input, o);
    print_solve(r.solve);
    std::printf("disk: %zu vertices, %zu triangles\n", r.disk.vertex_count(), r.disk.triangle_count());
    std::printf("energy / lower bound 4 sum(A): %.6f (Tutte start: %.6f), inverted triangles: %zu\n",
                r.energy / r.lower_bound, r.initial_energy / r.lower_bound, r.inverted);
    if (!a->output.empty()) write_mesh_file(a->output, mesh::uv_mesh(r));
    if (!a->cut_output.empty()) write_mesh_file(a->cut_output, r.disk);
  });
}

void add_mesh_cloth(CLI::App& mesh) {
  struct Args {
    MeshSolveFlags solve;
    mesh::ClothOptions cloth;
    std::string output_dir;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = mesh.add_subcommand("cloth", "Square cloth pinned at two corners falling under gravity: mass-spring + "
                                           "discrete-shell bending, implicit Euler solved by Newton; frames as OBJ");
  a->solve.add_to(*cmd, true);
  cmd->add_option("--resolution", a->cloth.resolution, "Cells per side")->check(checks::range(1, 4096));
  cmd->add_option("--size", a->cloth.size, "Side length (m)");
  cmd->add_option("--density", a->cloth.density, "Mass per area (kg/m^2)");
  cmd->add_option("--stretch", a->cloth.stretch_stiffness, "Spring stiffness (N per unit strain)");
  cmd->add_option("--bend", a->cloth.bend_stiffness, "Bending stiffness");
  cmd->add_option("--dt", a->cloth.time_step, "Frame time (s)");
  cmd->add_option("--substeps", a->cloth.substeps, "Implicit Euler steps per frame")->check(checks::range(1, 1000));
  cmd->add_option("--frames", a->cloth.frames, "Frames to simulate")->check(checks::non_negative());
  cmd->add_option("--output-dir,-o", a->output_dir, "Folder for frame_NNNN.obj");
  cmd->callback([a] {
    mesh::ClothOptions o = a->cloth;
    const bool quiet = a->solve.quiet;
    MeshSolveFlags flags = a->solve;
    flags.quiet = true;  // one line per frame instead of one per Newton iteration
    o.solve = flags.settings(mesh::ClothOptions::default_settings());
    std::printf("cloth: %u x %u cells, %d frames on %s\n", o.resolution, o.resolution, o.frames,
                to_string(o.solve.device));
    const auto result = mesh::simulate_cloth(o, [&](const mesh::ClothFrame& f, const io::TriangleMesh& m) {
      if (!quiet)
        std::printf("frame %4d  t %.3f  kinetic %.6g  elastic %.6g  gravity %.6g  total %.6g  newton %d%s\n", f.frame,
                    f.time, f.kinetic_energy, f.elastic_energy, f.gravity_energy, f.total_energy(),
                    f.newton_iterations, f.solves_converged ? "" : " (not converged)");
      if (!a->output_dir.empty()) {
        char name[32];
        std::snprintf(name, sizeof name, "frame_%04d.obj", f.frame);
        std::filesystem::create_directories(a->output_dir);
        io::write_obj((std::filesystem::path(a->output_dir) / name).string(), m);
      }
    });
    if (!a->output_dir.empty()) std::printf("wrote %zu frames to %s\n", result.frames.size(), a->output_dir.c_str());
  });
}

void add_mesh_sphere(CLI::App& mesh) {
  struct Args {
    MeshInputFlags input;
    MeshSolveFlags solve;
    std::string output;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = mesh.add_subcommand("sphere", "Embed a closed genus-0 mesh on the unit sphere without inverted "
                                            "triangles (tangent-space Newton with an inversion barrier)");
  a->input.add_to(*cmd, "sphere");
  a->solve.add_to(*cmd, true);
  cmd->add_option("--output,-o", a->output, "The embedding (.obj or .ply)");
  cmd->callback([a] {
    mesh::SphericalOptions o;
    o.solve = a->solve.settings(mesh::SphericalOptions::default_settings());
    const io::TriangleMesh input = a->input.load();
    const mesh::SphericalResult r = mesh::spherical_embedding(input, o);
    print_solve(r.solve);
    std::printf("inverted triangles: %zu at the start, %zu at the end (%d untangling rounds)\n", r.initial_inverted,
                r.inverted, r.untangle_rounds);
    std::printf("energy / lower bound: %.6f\n", r.energy / r.lower_bound);
    if (!a->output.empty()) {
      io::TriangleMesh out;
      out.vertices = r.points;
      out.triangles = input.triangles;
      write_mesh_file(a->output, out);
    }
  });
}

}  // namespace tilegrad::cli
